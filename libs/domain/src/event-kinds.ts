/**
 * The kinds of event — what an event is about: a transaction, a subscription, a payout or one of the merchant's
 * webhooks (operational events) — defined once, in their
 * canonical order (the order a webhook's `events` are stored in), each with:
 * - `types`: its event types, published on `payments.events` as `<kind>.<type>` (the routing key);
 * - `superseding`: whether a later event of a subject supersedes the pending repeats of its earlier ones (CONTRACT §5;
 *   a payout has a single event);
 * - `ofIntegration`: whether its events can belong to an integration (payouts belong to none, so a webhook linked to
 *   an integration that selects only such kinds could never fire, and is refused);
 * - `label`, `hint`: its wording in the backend UI, which gets it from `GET /api/webhook-options`.
 *
 * Everything else takes the kinds from here: the webhook `events` setting ({@link WEBHOOK_EVENT_TYPES}), the
 * messaging schemas, the DTOs and the OpenAPI documents, the dispatcher's sample events, the UI's choices and test
 * harness defaults. `event-kinds.spec.ts` fails when a hand-written list of the kinds appears elsewhere. Adding a
 * kind: docs/guides.md.
 */
import { SUBSCRIPTION_EVENTS } from './record.shapes.js';

interface EventKindDefinition {
  readonly types: readonly string[];
  readonly superseding: boolean;
  readonly ofIntegration: boolean;
  readonly label: string;
  readonly hint: string;
}

const DEFINITIONS = {
  transaction: {
    types: ['created', 'status_changed'],
    superseding: true,
    ofIntegration: true,
    label: 'Transactions',
    hint: 'New payments and every status change (confirmed, refunded, …).',
  },
  subscription: {
    types: ['created', ...SUBSCRIPTION_EVENTS],
    superseding: true,
    ofIntegration: true,
    label: 'Subscriptions',
    hint: 'Renewals, failed payments, cancellations and endings.',
  },
  payout: {
    types: ['created'],
    superseding: false,
    ofIntegration: false,
    label: 'Payouts',
    hint: 'Money paid out to your bank account. Payouts belong to no integration.',
  },
  // Operational events about the merchant's own webhooks (issue #34). The event about a webhook belongs to that
  // webhook's integration (none when it is linked to none), so a webhook linked to an integration hears about the
  // webhooks of its integration only.
  webhook: {
    types: ['failing', 'disabled', 'enabled', 'recovered'],
    superseding: false,
    ofIntegration: true,
    label: 'Webhooks',
    hint: 'Your webhooks: one failing for an hour, disabled (and why), enabled again, a recover finished.',
  },
} as const satisfies { readonly [kind: string]: EventKindDefinition };

type Definitions = typeof DEFINITIONS;

/** A kind of event: `transaction`, `subscription`, `payout` or `webhook`. */
export type EventKind = keyof Definitions;

/** Every kind of event, in canonical order. */
export const EVENT_KINDS: readonly EventKind[] = Object.freeze(Object.keys(DEFINITIONS) as EventKind[]);

/** A platform event type: `<kind>.<type>`, e.g. `transaction.status_changed`. */
export type PlatformEventType = { [K in EventKind]: `${K}.${Definitions[K]['types'][number]}` }[EventKind];

/** Every platform event type, by kind in canonical order, then in the order of the kind's `types`. */
export const PLATFORM_EVENT_TYPES: readonly PlatformEventType[] = Object.freeze(
  EVENT_KINDS.flatMap((kind) => DEFINITIONS[kind].types.map((type) => `${kind}.${type}` as PlatformEventType)),
);

/** The kinds whose later events supersede the pending repeats of a subject's earlier ones (CONTRACT §5). */
export const SUPERSEDING_EVENT_KINDS: readonly EventKind[] = Object.freeze(
  EVENT_KINDS.filter((kind) => DEFINITIONS[kind].superseding),
);

/** The kinds whose events belong to no integration (payouts). */
export const EVENT_KINDS_WITHOUT_INTEGRATION: readonly EventKind[] = Object.freeze(
  EVENT_KINDS.filter((kind) => !DEFINITIONS[kind].ofIntegration),
);

/** A kind of event as the backend UI offers it. */
export interface EventKindOption {
  type: EventKind;
  label: string;
  hint: string;
}

/** Every kind of event with its wording in the backend UI, in canonical order. */
export const EVENT_KIND_OPTIONS: readonly EventKindOption[] = Object.freeze(
  EVENT_KINDS.map((type) => Object.freeze({ type, label: DEFINITIONS[type].label, hint: DEFINITIONS[type].hint })),
);

const eventKinds: ReadonlySet<string> = new Set(EVENT_KINDS);

/** Whether `kind` is a kind of event (exact match). */
export function isEventKind(kind: unknown): kind is EventKind {
  return typeof kind === 'string' && eventKinds.has(kind);
}

/** The kind of a platform event type: the part before the dot. */
export function eventKindOf<T extends PlatformEventType>(type: T): T extends `${infer K}.${string}` ? K : never {
  return type.slice(0, type.indexOf('.')) as T extends `${infer K}.${string}` ? K : never;
}
