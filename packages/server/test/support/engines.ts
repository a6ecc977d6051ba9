import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Engine } from '../../src/store/database.ts';

/** SQLite always; PostgreSQL as well when OBOLUS_TEST_DATABASE_URL names a server. */
export const PG_URL = process.env.OBOLUS_TEST_DATABASE_URL;
export const ENGINES: Engine[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
/**
 * Browser checks of what a page looks like and does by itself (themes, widths, keyboard, origins,
 * the widget's own messages) run on this engine only: the page is the same over either engine,
 * and the store behind it is checked on both by the API tests and the payment browser tests
 * (decision 0189).
 */
export const PAGE_ENGINES: Engine[] = ['sqlite'];

/**
 * Whether `engine` takes the `turn`-th of a set of browser checks spread over the engines: the
 * variants of one check (widths, themes) or checks of the widget's own behaviour, each seen once,
 * in turn on each engine, instead of every one on every engine (decision 0271).
 */
export const takesTurn = (engine: Engine, turn: number): boolean => ENGINES[turn % ENGINES.length] === engine;

/** The variants of a browser check that `engine` runs, spread over the engines by `takesTurn`. */
export const turnsOf = <T>(engine: Engine, variants: readonly T[]): T[] =>
  variants.filter((_, turn) => takesTurn(engine, turn));

/**
 * PostgreSQL requires OBOLUS_MASTER_KEY; every process of a test run (the test's server and the
 * `obolus` processes it spawns, which inherit the environment) shares this one. Without
 * PostgreSQL, SQLite processes share the key file generated beside their database.
 */
if (PG_URL) process.env.OBOLUS_MASTER_KEY ||= randomBytes(32).toString('base64');
/** Test files run side by side: each `obolus serve` they spawn takes a free metrics port, not the shared default. */
process.env.OBOLUS_METRICS_PORT ||= '0';
/**
 * A CI machine running two test files, Chromium and a dozen `obolus` processes on two cores is
 * slow, not a database outage: the suite's servers wait longer than production's 2 s before
 * answering 503 (decision 0221). The outage tests set short timeouts of their own.
 */
export const SUITE_DATABASE_TIMEOUTS = {
  OBOLUS_DATABASE_CONNECT_TIMEOUT_MS: '10000',
  OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS: '30000',
};
for (const [name, value] of Object.entries(SUITE_DATABASE_TIMEOUTS)) process.env[name] ||= value;

export interface TestDatabase {
  engine: Engine;
  url: string;
  /** PostgreSQL: the schema this test owns. */
  schema?: string;
  drop(): Promise<void>;
}

/** A database no other test run can see: a fresh SQLite file, or a fresh PostgreSQL schema. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'obolus-test-'));
    return {
      engine,
      url: join(dir, 'obolus.db'),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!PG_URL) throw new Error('OBOLUS_TEST_DATABASE_URL is not set');
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await withPg((client) => client.query(`create schema ${schema}`));
  return {
    engine,
    url: PG_URL,
    schema,
    drop: () => withPg((client) => client.query(`drop schema ${schema} cascade`)).then(() => undefined),
  };
}

async function withPg<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
