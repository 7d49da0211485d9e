import { describe, expect, it } from '@jest/globals';
import { EVENT_KINDS, LATEST_WEBHOOK_VERSION, renderWebhookPayload } from '#domain';
import { sampleSubject } from './sample-event.js';

describe('the sample event of a test delivery', () => {
  it('exists for every kind of #domain, and is of that kind', () => {
    for (const kind of EVENT_KINDS) {
      const subject = sampleSubject([kind], null);
      expect(subject.type).toBe(kind);
      // It renders: a receiver gets a payload of that kind.
      expect(Object.keys(renderWebhookPayload(LATEST_WEBHOOK_VERSION, subject))).toEqual([kind]);
    }
  });

  it('is of the first kind selected in the order of EVENT_KINDS, whatever order the webhook lists them in', () => {
    expect(sampleSubject([...EVENT_KINDS].reverse(), null).type).toBe(EVENT_KINDS[0]);
    expect(sampleSubject(EVENT_KINDS.slice(1).reverse(), null).type).toBe(EVENT_KINDS[1]);
    expect(sampleSubject([], null).type).toBe(EVENT_KINDS[0]);
  });
});
