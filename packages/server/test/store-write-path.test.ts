import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../src/store/database.ts';
import { GroupCommit } from '../src/store/write-runner.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from './support/engines.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/** The hot write path (docs/decisions/0120-embedded-store-hot-paths.md), on every engine. */
describe.each(ENGINES)('the write path (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine, { config: { webhooksPollMs: 0, webhooksAllowLoopback: true } });
  });
  afterAll(() => t.close());

  const createIntent = (key: string) =>
    t.call('POST', '/api/v1/payment-intents', { key, body: { amount: 1500, currency: 'USD', mode: 'sandbox' } });
  const eventsOf = (objectId: string) =>
    t.server.services.database.db
      .selectFrom('events')
      .select(['object_seq', 'fanned_out_at'])
      .where('object_id', '=', objectId)
      .execute();

  it('answers 200 concurrent creates each after its commit: every one is readable at once, with its event', async () => {
    const account = await t.newAccount();
    const created = await Promise.all(Array.from({ length: 200 }, () => createIntent(account.secretKey)));
    expect(created.map((r) => r.status)).toEqual(created.map(() => 200));
    const reads = await Promise.all(
      created.map((r) => t.call('GET', `/api/v1/payment-intents/${r.json.id}`, { key: account.secretKey })),
    );
    expect(reads.map((r) => r.json)).toEqual(created.map((r) => r.json));
    const [first] = created;
    expect(await eventsOf(first?.json.id)).toEqual([{ object_seq: 1, fanned_out_at: expect.any(Number) }]);
  });

  it('an event nobody listens to is born fanned out; one an endpoint listens to waits for the fan-out', async () => {
    const quiet = await t.newAccount();
    const listened = await t.newAccount();
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: listened.secretKey,
      body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'], mode: 'sandbox' },
    });
    expect(endpoint.status).toBe(200);
    const unheard = (await createIntent(quiet.secretKey)).json.id;
    const heard = (await createIntent(listened.secretKey)).json.id;
    expect((await eventsOf(unheard))[0]?.fanned_out_at).not.toBeNull();
    expect((await eventsOf(heard))[0]?.fanned_out_at).toBeNull();
  });

  it('a foreign intent or transaction id reads as missing on the prepared-statement path too', async () => {
    const owner = await t.newAccount();
    const other = await t.newAccount();
    const id = (await createIntent(owner.secretKey)).json.id;
    const foreign = await t.call('GET', `/api/v1/payment-intents/${id}`, { key: other.secretKey });
    const missing = await t.call('GET', '/api/v1/payment-intents/000000000000000000000000', { key: other.secretKey });
    const shape = (r: typeof foreign) => ({
      status: r.status,
      error: { ...r.json.error, message: '', request_id: '' },
    });
    expect(shape(foreign)).toEqual(shape(missing));
    expect(foreign.status).toBe(404);
  });
});

describe('group commit on SQLite', () => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    testDb = await createTestDatabase('sqlite');
    handle = openDatabase(testDb.url);
    await migrateToLatest(handle.db);
    await sql`create table probe (id text primary key)`.execute(handle.db);
  });
  afterAll(async () => {
    await handle.close();
    await testDb.drop();
  });

  it('a failing unit undoes only itself; the units beside it in the batch commit', async () => {
    const writes = new GroupCommit(handle.db, handle.sqlite?.writer);
    const insert = (id: string) => writes.run((trx) => sql`insert into probe (id) values (${id})`.execute(trx));
    const outcomes = await Promise.allSettled([
      insert('a'),
      writes.run(async (trx) => {
        await sql`insert into probe (id) values ('b')`.execute(trx);
        throw new Error('unit b fails after its insert');
      }),
      insert('a'), // a duplicate key: fails on its own
      insert('c'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    const { rows } = await sql<{ id: string }>`select id from probe order by id`.execute(handle.db);
    expect(rows.map((r) => r.id)).toEqual(['a', 'c']);
  });

  it('the writer thread: units of one batch commit together, a failing one undoes only itself', async () => {
    const thread = handle.sqlite?.thread;
    if (!thread) throw new Error('no writer thread');
    const insert = (id: string) => ({ sql: 'insert into probe (id) values (?)', params: [id] });
    const outcomes = await Promise.allSettled([
      thread.run([insert('t1')]),
      thread.run([insert('t2'), insert('t1')]), // its second statement fails: t2 is undone too
      thread.run([insert('t3')]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    const { rows } = await sql<{ id: string }>`select id from probe where id like 't%' order by id`.execute(handle.db);
    expect(rows.map((r) => r.id)).toEqual(['t1', 't3']);
  });

  it('the reader connection sees every acknowledged commit and nothing before it', async () => {
    const writes = new GroupCommit(handle.db, handle.sqlite?.writer);
    const reader = handle.sqlite?.reader;
    const seenInside: unknown[] = [];
    await writes.run(async (trx) => {
      await sql`insert into probe (id) values ('d')`.execute(trx);
      seenInside.push(reader?.prepare(`select id from probe where id = 'd'`).get());
    });
    expect(seenInside).toEqual([undefined]);
    expect(reader?.prepare(`select id from probe where id = 'd'`).get()).toEqual({ id: 'd' });
  });
});
