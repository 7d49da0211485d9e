import { describe, expect, it } from '@jest/globals';
import {
  encodePayload,
  EVENT_KIND_OPTIONS,
  EVENT_KINDS,
  LATEST_WEBHOOK_VERSION,
  PLATFORM_EVENT_TYPES,
  phpPostSchema,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_MIME_TYPES,
  WEBHOOK_VERSIONS,
  webhookPayloadExample,
  webhookPayloadSchema,
} from '#domain';
import { EventCatalogService } from './event-catalog.service.js';

/** The catalog is libs/domain's single definitions put together, nothing of its own (issue #34). */
describe('EventCatalogService', () => {
  const { data } = new EventCatalogService().list();

  it('lists every kind of event in canonical order, with its wording and its event types', () => {
    expect(data.map(({ kind, label, hint }) => ({ type: kind, label, hint }))).toEqual(
      EVENT_KIND_OPTIONS.map((option) => ({ ...option })),
    );
    expect(data.map((entry) => entry.kind)).toEqual([...EVENT_KINDS]);
    // Every event type exactly once, under its kind, in the definition's order.
    expect(data.flatMap((entry) => entry.types)).toEqual([...PLATFORM_EVENT_TYPES]);
    for (const entry of data) for (const type of entry.types) expect(type.startsWith(`${entry.kind}.`)).toBe(true);
  });

  it('gives every kind every payload version, oldest first, with the published schema and example', () => {
    for (const entry of data) {
      expect(entry.versions.map((version) => version.version)).toEqual([...WEBHOOK_VERSIONS]);
      expect(entry.versions.filter((version) => version.latest).map((version) => version.version)).toEqual([
        LATEST_WEBHOOK_VERSION,
      ]);
      for (const version of entry.versions) {
        expect(version.schema).toStrictEqual(webhookPayloadSchema(entry.kind, version.version));
        expect(version.example).toStrictEqual(webhookPayloadExample(entry.kind, version.version));
      }
    }
  });

  it('gives each version its example in every content type, exactly as sent, with what the receiver parses', () => {
    for (const entry of data) {
      for (const version of entry.versions) {
        expect(version.encodings.map((encoding) => encoding.contentType)).toEqual([...WEBHOOK_CONTENT_TYPES]);
        for (const encoding of version.encodings) {
          const sent = encodePayload(encoding.contentType, version.example);
          expect([encoding.mediaType, encoding.body]).toEqual([WEBHOOK_MIME_TYPES[encoding.contentType], sent.body]);
          expect(encoding.schema).toStrictEqual(
            encoding.contentType === 'json' ? version.schema : phpPostSchema(version.schema),
          );
        }
      }
    }
  });

  it('is built once: every request gets the same catalog', () => {
    const service = new EventCatalogService();
    expect(service.list()).toBe(service.list());
  });
});
