import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventDraft, EventType } from '../src/domain/events.ts';
import { type AccountId, newIntentId } from '../src/ids.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../src/store/database.ts';
import { appendEvents } from '../src/store/repos/events.ts';
import { GroupCommit, walSyncer } from '../src/store/write-runner.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from './support/engines.ts';
import { WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

/** The hot write path (docs/decisions/0120-embedded-store-hot-paths.md), on every engine. */
describe.each(ENGINES)('the write path (%s)', (engine) => {
  const { t } = useTestServer(engine, { config: WEBHOOKS_BY_HAND });

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

  it('an intent written with several events gets them all, numbered in order, or nothing', async () => {
    const account = await t.newAccount();
    const id = (await createIntent(account.secretKey)).json.id;
    const { repos } = t.server.services;
    const intent = await repos.intents.find(account.id as AccountId, id);
    if (!intent) throw new Error('created intent not found');
    const copy = { ...intent, id: newIntentId(Date.now()) };
    const draft = (type: EventType): EventDraft => ({
      accountId: account.id,
      type,
      mode: copy.mode,
      objectType: 'payment_intent',
      objectId: copy.id,
      object: { id: copy.id },
    });
    await repos.intents.insert(copy, [draft('payment_intent.created'), draft('payment_intent.processing')]);
    expect((await eventsOf(copy.id)).map((e) => e.object_seq)).toEqual([1, 2]);
    // The same id again: the intent's insert fails, and neither event is written.
    await expect(repos.intents.insert(copy, [draft('payment_intent.created')])).rejects.toThrow();
    expect(await eventsOf(copy.id)).toHaveLength(2);
  });

  it('the events of one write, of several objects in one statement, each numbered after its own object', async () => {
    const account = await t.newAccount();
    const [a, b] = [`obj_a_${newIntentId(Date.now())}`, `obj_b_${newIntentId(Date.now())}`];
    const draft = (objectId: string, type: EventType): EventDraft => ({
      accountId: account.id as AccountId,
      type,
      mode: 'sandbox',
      objectType: 'payment_intent',
      objectId,
      object: { id: objectId, type },
    });
    const { db } = t.server.services.database;
    await appendEvents(db, [draft(a, 'payment_intent.created')], Date.now());
    await appendEvents(
      db,
      [draft(a, 'payment_intent.processing'), draft(b, 'payment_intent.created'), draft(a, 'payment_intent.succeeded')],
      Date.now(),
    );
    await appendEvents(db, [], Date.now());
    const seqs = async (objectId: string) =>
      (
        await db
          .selectFrom('events')
          .select(['type', 'object_seq'])
          .where('object_id', '=', objectId)
          .orderBy('object_seq')
          .execute()
      ).map((e) => [e.type, e.object_seq]);
    expect(await seqs(a)).toEqual([
      ['payment_intent.created', 1],
      ['payment_intent.processing', 2],
      ['payment_intent.succeeded', 3],
    ]);
    expect(await seqs(b)).toEqual([['payment_intent.created', 1]]);
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

  it('with its WAL synced off the main thread: committed first, answered only after the sync, FULL kept for every other write', async () => {
    const writer = handle.sqlite?.writer;
    const reader = handle.sqlite?.reader;
    if (!writer || !reader) throw new Error('no native connections');
    let releaseSync: () => void = () => {};
    const syncModes: unknown[] = [];
    const writes = new GroupCommit(handle.db, writer, () => {
      syncModes.push(writer.pragma('synchronous', { simple: true }));
      return new Promise<void>((resolve) => {
        releaseSync = resolve;
      });
    });
    let answered = false;
    const unit = writes
      .run(async (trx) => {
        await sql`insert into probe (id) values ('w')`.execute(trx);
      })
      .then(() => {
        answered = true;
      });
    await expect.poll(() => syncModes.length).toBe(1);
    // Committed (the reader sees it) and the connection back on FULL (2) before the sync ...
    expect(reader.prepare(`select id from probe where id = 'w'`).get()).toEqual({ id: 'w' });
    expect(syncModes).toEqual([2]);
    // ... and a write of another path meanwhile runs synced.
    await sql`insert into probe (id) values ('x')`.execute(handle.db);
    expect(writer.pragma('synchronous', { simple: true })).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    releaseSync();
    await unit;
    expect(answered).toBe(true);
  });

  it('a failed WAL sync fails every unit of its batch: none is told its write is safe', async () => {
    const writes = new GroupCommit(handle.db, handle.sqlite?.writer, () => Promise.reject(new Error('EIO')));
    const outcomes = await Promise.allSettled([
      writes.run((trx) => sql`insert into probe (id) values ('y1')`.execute(trx)),
      writes.run((trx) => sql`insert into probe (id) values ('y2')`.execute(trx)),
    ]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.status))).toEqual([
      'Error: EIO',
      'Error: EIO',
    ]);
  });

  it('the WAL syncer fdatasyncs the WAL of the database file, and fails when there is none', async () => {
    await expect(walSyncer(handle.location)()).resolves.toBeUndefined();
    await expect(walSyncer(`${handle.location}.missing`)()).rejects.toThrow(/ENOENT/);
  });
});
