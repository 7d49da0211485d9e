/** What a PostgreSQL (or pg driver) failure means to the code that ran the statement. */

/** SQLSTATEs that may pass: connection exceptions (08, but not 08P01, a protocol violation: our bug), insufficient
 * resources (53), PostgreSQL shutting down or starting (57P01–57P03), a statement cancelled after the statement
 * timeout (57014), a database not accepting connections (55000), a lock not available (55P03), a read-only server
 * during a failover (25006), serialisation failures and deadlocks (40001, 40P01). */
const TRANSIENT_SQLSTATE = /^(08(?!P01)|53)|^(57014|57P01|57P02|57P03|55000|55P03|25006|40001|40P01)$/;
/** Socket errors of a connection that could not be made or was lost. */
const TRANSIENT_SOCKET = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;
/** The pg driver's own messages for a lost or unobtainable connection (they carry no code). */
const TRANSIENT_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|not queryable/i;

/**
 * TypeORM's error for a statement on a transaction's connection that is already gone: the connection emitted an error
 * (terminated by the server, cut) and TypeORM released it, so the transaction's next statement never reached
 * PostgreSQL (which rolled the transaction back).
 */
const TRANSIENT_NAME = /^QueryRunnerProviderAlreadyReleasedError$/;

const codeOf = (error: unknown) => (error as { code?: unknown } | undefined)?.code;

/**
 * Whether repeating may fix this database failure: the connection could not be made or was lost, PostgreSQL is
 * shutting down, starting up or out of connections, did not answer within the statement timeout, or the
 * transaction lost a race. Anything else (bad data, a
 * constraint, an error in the statement, a bug) would fail again.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_SOCKET.test(code))) return true;
  const { message, name } = (error ?? {}) as { message?: unknown; name?: unknown };
  if (typeof name === 'string' && TRANSIENT_NAME.test(name)) return true;
  return typeof message === 'string' && TRANSIENT_MESSAGE.test(message);
}

/** A foreign-key violation (23503): the row refers to one that does not exist (any more). */
export function isForeignKeyViolation(error: unknown): boolean {
  return codeOf(error) === '23503';
}
