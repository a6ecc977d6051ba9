import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../src/store/database.ts';
import { migrationProvider } from '../src/store/migrations/index.ts';
import { createTestDatabase, PG_URL } from './support/engines.ts';

/**
 * Obolus in a PostgreSQL database it shares: Kysely's migrator reads the tables of every
 * schema, and a schema another app drops during that read must not stop Obolus from starting.
 */
describe.runIf(PG_URL)('migrations in a shared PostgreSQL database', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('bring a schema up to date while other schemas are being dropped', async () => {
    const other = new pg.Client({ connectionString: PG_URL });
    await other.connect();
    cleanup.push(() => other.end());
    const prefix = `gone_${process.pid}_${Date.now().toString(36)}`;
    const names = Array.from({ length: SCHEMAS }, (_, i) => `${prefix}_${i}`);
    await other.query(
      names.map((n) => `create schema ${n}; create table ${n}.orders (id serial primary key, note text);`).join(''),
    );
    cleanup.push(() => other.query(names.map((n) => `drop schema if exists ${n} cascade;`).join('')));

    let dropping = true;
    let dropped = 0;
    const drops = (async () => {
      for (const name of names) {
        if (!dropping) break;
        await other.query(`drop schema ${name} cascade`);
        dropped++;
      }
    })();
    const applied: number[] = [];
    let droppedBeforeFirst: number | undefined;
    try {
      for (let i = 0; i < STARTS; i++) {
        const mine = await createTestDatabase('postgres');
        cleanup.push(() => mine.drop());
        const handle = openDatabase(PG_URL as string, { schema: mine.schema as string });
        cleanup.push(() => handle.close());
        applied.push((await migrateToLatest(handle.db)).applied.length);
        droppedBeforeFirst ??= dropped;
        // Started again on a schema already up to date, as every restart does.
        expect(await migrateToLatest(handle.db)).toEqual({ applied: [] });
      }
    } finally {
      dropping = false;
      await drops;
    }
    expect(applied).toEqual(Array(STARTS).fill(MIGRATIONS));
    // The drops really overlapped the first start (before the fix, it failed every time).
    expect(droppedBeforeFirst).toBeGreaterThan(0);
    expect(droppedBeforeFirst).toBeLessThan(SCHEMAS);
  }, 60_000);
});

const SCHEMAS = 400;
const STARTS = 3;
const MIGRATIONS = Object.keys(await migrationProvider.getMigrations()).length;
