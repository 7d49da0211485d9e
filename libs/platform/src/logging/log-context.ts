import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Fields that every log line written while they are in scope carries: the request being answered, the merchant it
 * acts for, the event, delivery and webhook being worked on. `traceId` is the slot for the trace a request or
 * delivery belongs to, filled where a trace is continued.
 */
export interface LogFields {
  requestId?: string;
  merchantId?: string;
  eventId?: string;
  deliveryId?: string;
  webhookId?: string;
  traceId?: string;
}

const scope = new AsyncLocalStorage<LogFields>();

/** The fields in scope here (an empty object outside any scope). Read by the logger for every line. */
export function currentLogFields(): Readonly<LogFields> {
  return scope.getStore() ?? {};
}

/** Runs `work` with these fields added to those in scope: every line it logs, sync or async, carries them. */
export function withLogFields<T>(fields: LogFields, work: () => T): T {
  return scope.run({ ...scope.getStore(), ...fields }, work);
}

/**
 * Runs `work` in this very fields object (an HTTP request keeps one for its whole life, which its access line reads
 * too): what `addLogFields` puts in it later shows in every line that follows.
 */
export function runInLogFields<T>(fields: LogFields, work: () => T): T {
  return scope.run(fields, work);
}

/** Adds fields to the scope this runs in (for the rest of it: a request's merchant once it is authenticated). */
export function addLogFields(fields: LogFields): void {
  const current = scope.getStore();
  if (current) Object.assign(current, fields);
}
