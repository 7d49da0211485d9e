import type { OpenAPIObject } from '@nestjs/swagger';
import { WEBHOOK_HEADER_SCHEMAS, WEBHOOK_MIME_TYPES, webhookPayloadDocs, type WebhookPayloadDoc } from '#domain';

type Webhooks = NonNullable<OpenAPIObject['webhooks']>;
type Operation = NonNullable<Webhooks[string]['post']>;

const DELIVERY = `
POSTed to every webhook of the merchant that selected these events and this payload version, linked to the
event's integration or to none, in the webhook's content type: \`application/json\`, or
\`application/x-www-form-urlencoded\` ("PHP-Post") for PHP receivers. Both carry the same tree.

Verify a signature over the raw body before reading it (\`webhook-signature\`, or \`x-webhook-signature\` for the
older scheme). Delivery is at-least-once: deduplicate on \`webhook-id\`. Events can arrive out of order (a repeat
after a failure arrives after later events): keep a status only if the payload's \`updatedAt\` is newer than the one
you stored, or read the object from the API when a webhook arrives.
`.trim();

const PHP_POST = `
The same tree in PHP bracket notation (\`transaction[3dsecure][eci]=05\`), names and values percent-encoded as UTF-8:
\`null\` is an empty value (the key is still present), numbers their decimal text, booleans \`1\`/\`0\`. PHP's
\`$_POST\` rebuilds the tree with every leaf a string; \`contentSchema\` describes it.
`.trim();

const FAILED = `
Failed: any other status (a redirect too — it is not followed), or no complete response within the delivery timeout
(\`WEBHOOK_TIMEOUT_MS\`, 20 s by default; logged as status 0). With "retry on error" the delivery is repeated with the
same \`webhook-id\` and body up to 10 times, after the delays of \`WEBHOOK_RETRY_DELAYS\` (11 attempts at most);
without it, there is exactly one attempt.
`.trim();

/** The request headers of every attempt, as header parameters. */
const HEADERS: Operation['parameters'] = Object.entries(WEBHOOK_HEADER_SCHEMAS).map(
  ([name, { description, ...schema }]) => ({
    name,
    in: 'header',
    required: true,
    description: String(description),
    schema,
  }),
);

function operation(doc: WebhookPayloadDoc): Operation {
  const name = `${doc.eventType}-${doc.version}`;
  return {
    operationId: `webhook-${name}`,
    summary: `${doc.eventType} events, payload version ${doc.version}`,
    description: `${String(doc.schema.description)}\n\n${DELIVERY}`,
    tags: ['Webhooks'],
    // Sent by the platform, not called by a client: the signature headers authenticate it.
    security: [],
    parameters: HEADERS,
    requestBody: {
      required: true,
      content: {
        [WEBHOOK_MIME_TYPES.json]: { schema: doc.schema, example: doc.example },
        [WEBHOOK_MIME_TYPES['php-post']]: {
          schema: {
            type: 'string',
            description: PHP_POST,
            contentMediaType: WEBHOOK_MIME_TYPES['php-post'],
            contentSchema: doc.phpPostSchema,
          },
          example: doc.phpPostExample,
        },
      },
    },
    responses: {
      '2XX': { description: 'Success: the event is delivered; it is not sent again.' },
      default: { description: FAILED },
    },
  } as Operation;
}

/**
 * The OpenAPI `webhooks`: one entry per event type and payload version (`transaction-2026-08-20`, …), each with the
 * payload's JSON Schema and example from libs/domain, in both content types, and the headers.
 */
export function webhooksDoc(): Webhooks {
  return Object.fromEntries(
    webhookPayloadDocs().map((doc) => [`${doc.eventType}-${doc.version}`, { post: operation(doc) }]),
  );
}
