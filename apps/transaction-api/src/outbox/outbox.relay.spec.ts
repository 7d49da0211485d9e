import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { waves } from './outbox.relay.js';
import type { OutboxRow } from './outbox.store.js';
import { withPosition } from './platform-event.js';

const row = (seq: number, subjectId: string): OutboxRow => ({
  seq: String(seq),
  id: `e${seq}`,
  type: 't',
  subjectId,
  category: 'transaction',
  merchantId: 'm',
  integrationId: null,
  payload: '{}',
  traceparent: null,
});

describe('outbox waves', () => {
  it("puts each subject at most once in a wave and keeps every subject's events in seq order across waves", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 60 }), (subjects) => {
        const rows = subjects.map((subject, index) => row(index + 1, subject));
        const result = waves(rows);
        expect(result.flat()).toHaveLength(rows.length);
        for (const wave of result) expect(new Set(wave.map((r) => r.subjectId)).size).toBe(wave.length);
        const published = result.flat();
        for (const subject of new Set(subjects)) {
          const seqs = published.filter((r) => r.subjectId === subject).map((r) => Number(r.seq));
          expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
        }
      }),
    );
  });

  it('publishes distinct subjects in one wave', () => {
    expect(waves([row(1, 'a'), row(2, 'b'), row(3, 'c')])).toHaveLength(1);
    expect(waves([row(1, 'a'), row(2, 'a'), row(3, 'b')]).map((w) => w.map((r) => r.seq))).toEqual([['1', '3'], ['2']]);
  });
});

describe('the published event: the payload as written, with its position', () => {
  it('adds the seq as `position`, the last field, to the JSON as written (either writer: JSON.stringify or SQL)', () => {
    const written = JSON.stringify({ v: 1, id: 'e', data: { status: 'confirmed', nested: { a: [1, 2] } } });
    expect(withPosition(written, '123')).toBe(`${written.slice(0, -1)},"position":123}`);
    expect(JSON.parse(withPosition(written, '123'))).toEqual({ ...JSON.parse(written), position: 123 });
    // json_build_object's spacing, and trailing white space.
    expect(JSON.parse(withPosition('{"v" : 1, "data" : {"x" : null}} \n', '7'))).toEqual({
      v: 1,
      data: { x: null },
      position: 7,
    });
    expect(JSON.parse(withPosition('{}', '1'))).toEqual({ position: 1 });
    expect(JSON.parse(withPosition(' { } ', '9007199254740991'))).toEqual({ position: 9007199254740991 });
  });

  it('leaves what is not a JSON object as it is', () => {
    for (const payload of ['[1, 2]', '"text"', '42', '']) expect(withPosition(payload, '5')).toBe(payload);
  });
});
