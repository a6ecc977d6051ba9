import pg from 'pg';

/** How long a PostgreSQL call may take before it is given up as the database being away (decision 0220). */
export interface DatabaseTimeouts {
  /** Connecting, and waiting for a free connection of the pool. */
  connectMs: number;
  /** A statement, on the server (statement_timeout); 0: none (migrations). */
  statementMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 2000, statementMs: 2000 };

/** Migrations may build an index over a large table: no statement timeout. */
export const migrationTimeouts = (timeouts: DatabaseTimeouts): DatabaseTimeouts => ({ ...timeouts, statementMs: 0 });

/**
 * The client's own deadline for an answer, past the server's statement timeout: a server that
 * stopped answering (a crashed host, a cut network) sends no error, so the client gives up.
 */
const READ_MARGIN_MS = 500;

/** OBOLUS_DATABASE_CONNECT_TIMEOUT_MS and OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS, whole milliseconds. */
export function parseDatabaseTimeouts(env: NodeJS.ProcessEnv): DatabaseTimeouts {
  const read = (name: string, fallback: number, max: number) => {
    const text = env[name] || String(fallback);
    const ms = Number(text);
    if (!/^\d+$/.test(text) || ms < 100 || ms > max) {
      throw new Error(`${name} must be 100..${max} milliseconds, got '${text}'`);
    }
    return ms;
  };
  return {
    connectMs: read('OBOLUS_DATABASE_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs, 60_000),
    statementMs: read('OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementMs, 600_000),
  };
}

/**
 * A client whose query got no answer in time closes its socket: pg leaves such a query in
 * place, and every later query of that connection would queue behind it. Closed, the
 * connection leaves the pool and the next query opens a new one.
 */
class DeadlineClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this passes them all through.
  override query(...args: any[]): any {
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: Error) => {
      if (error.message === 'Query read timeout') {
        (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      }
      throw error;
    });
  }
}

export interface PoolOptions {
  max: number;
  /** PostgreSQL options of each connection, e.g. `-c search_path=…`. */
  options?: string;
  timeouts: DatabaseTimeouts;
  /** Told of a connection that broke (the server went away); a later query fails and is answered 503. */
  onConnectionLost?: (error: Error) => void;
}

const INT8_OID = 20;

/**
 * A pool that survives its database going away: a connection that breaks, idle or checked
 * out, is reported and dropped instead of raising an unhandled 'error' (which ends the
 * process), and every call is bounded by a connect timeout and a statement timeout, so that
 * while the database is away requests are answered in seconds, and after it a new
 * connection is opened on demand (decision 0220).
 */
export function openPostgresPool(url: string, options: PoolOptions): pg.Pool {
  const { connectMs, statementMs } = options.timeouts;
  const pool = new pg.Pool({
    connectionString: url,
    Client: DeadlineClient,
    max: options.max,
    ...(options.options ? { options: options.options } : {}),
    connectionTimeoutMillis: connectMs,
    ...(statementMs > 0 ? { statement_timeout: statementMs, query_timeout: statementMs + READ_MARGIN_MS } : {}),
    // A peer that vanished without closing (a failover, a cut network) is found out by the kernel.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Timestamps are bigint milliseconds: well inside Number's exact range, so read them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
    },
  });
  const lost = (error: Error) => options.onConnectionLost?.(error);
  // Every connection reports its breaking here, idle or checked out (pg-pool listens only while
  // it is idle, and a checked-out one's next query fails, so its release removes it).
  pool.on('connect', (client) => client.on('error', lost));
  // The pool's own report of an idle one it removed: already told above.
  pool.on('error', () => {});
  return pool;
}
