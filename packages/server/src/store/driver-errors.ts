/**
 * Driver errors are translated here and nowhere else: the domain never sees an SQLSTATE
 * or an SQLite result code.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * The database could not be used, not the request: PostgreSQL unreachable, restarting, failing
 * over, read-only (a standby), or slower than the statement timeout; SQLite's disk full,
 * read-only or failing. Such a failure is answered 503 and may be retried (decision 0220).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = codeOf(e);
    if (code !== undefined && (UNAVAILABLE_CODES.test(code) || NETWORK_CODES.has(code))) return true;
    if (PG_CONNECTION_MESSAGES.test(e.message)) return true;
  }
  return false;
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (shut down, crashed, not accepting
 * connections yet), 57014 (cancelled: the statement timeout), 25006 (a write on a standby),
 * 53300 (too many connections); SQLite's full disk, read-only file or volume, I/O errors,
 * a lock held past the busy timeout, a file it cannot open.
 */
const UNAVAILABLE_CODES =
  /^(08[0-9A-Z]{3}|57P0[123]|57014|25006|53300|SQLITE_(FULL|READONLY|IOERR|BUSY|CANTOPEN)(_[A-Z_]+)?)$/;

/** The socket under the pg driver failed. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What the pg driver and its pool say, without a code, of a connection that is gone or never came. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;
