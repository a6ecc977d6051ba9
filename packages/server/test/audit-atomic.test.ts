import { sql } from 'kysely';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { rollSecretKey } from '../src/domain/accounts.ts';
import { setAllowedOrigins } from '../src/domain/allowed-origins.ts';
import { CLI_ACTOR } from '../src/domain/audit.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

/**
 * Decision 0205: a key roll and a refund write their audit event in their own database
 * transaction. When the audit row cannot be written the action does not happen either, and
 * a done action has exactly one row. The database is made to refuse audit rows by a trigger.
 */
describe.each(ENGINES)('audit events commit with their action (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 4, 0, 0));
  const { t } = useTestServer(engine, { clock });
  // Replaced by a test that rolls its key.
  let shop: TestAccount;
  beforeAll(async () => {
    shop = await t.newAccount();
  });

  const trailOf = async (action: string) =>
    (await t.server.services.repos.audit.list(shop.id, { limit: 100 })).filter((e) => e.action === action);

  async function refuseAuditRows(): Promise<void> {
    const { db } = t.server.services.database;
    if (engine === 'sqlite') {
      await sql`create trigger refuse_audit before insert on audit_events begin select raise(abort, 'audit refused by the test'); end`.execute(
        db,
      );
    } else {
      await sql`create or replace function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused by the test'; end $$`.execute(
        db,
      );
      await sql`create trigger refuse_audit before insert on audit_events for each row execute function refuse_audit()`.execute(
        db,
      );
    }
  }

  afterEach(async () => {
    const { db } = t.server.services.database;
    if (engine === 'sqlite') await sql`drop trigger if exists refuse_audit`.execute(db);
    else await sql`drop trigger if exists refuse_audit on audit_events`.execute(db);
  });

  const keyWorks = async (key: string) => (await t.call('GET', '/api/v1/payment-intents', { key })).status === 200;

  it('a key roll whose audit row cannot be written does not roll: the old key still works, no row', async () => {
    await refuseAuditRows();
    await expect(
      rollSecretKey(t.server.services.credentials, t.server.services.clock, shop.id, 0, { actor: CLI_ACTOR }),
    ).rejects.toThrow(/audit refused/);
    expect(await keyWorks(shop.secretKey)).toBe(true);
    expect(await t.server.services.repos.accounts.keysOf(shop.id)).toHaveLength(1);
    expect(await trailOf('secret_key.rolled')).toEqual([]);
  });

  it('a key roll that commits has exactly one audit row, naming the new key by its last 4', async () => {
    const rolled = await rollSecretKey(t.server.services.credentials, t.server.services.clock, shop.id, 0, {
      actor: CLI_ACTOR,
    });
    expect(await keyWorks(shop.secretKey)).toBe(false);
    expect(await keyWorks(rolled.secretKey)).toBe(true);
    const trail = await trailOf('secret_key.rolled');
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({
      actor: 'cli',
      outcome: 'success',
      detail: { new_key: `sk_…${rolled.secretKey.slice(-4)}`, grace_hours: 0 },
    });
    shop = { ...shop, secretKey: rolled.secretKey };
  });

  it('a refund whose audit row cannot be written is no refund: nothing refunded, no row', async () => {
    const { id } = await createSettledTransaction(t, shop, { amount: 2000 });
    await refuseAuditRows();
    const res = await t.call('POST', `/api/v1/transactions/${id}/refunds`, { key: shop.secretKey, body: {} });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(res.json.error).toBeDefined();
    const tx = await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey });
    expect(tx.json).toMatchObject({ id, amount_refunded: 0 });
    const refunds = await t.call('GET', `/api/v1/refunds?transaction=${id}`, { key: shop.secretKey });
    expect(refunds.json.data).toEqual([]);
    expect(await trailOf('refund.created')).toEqual([]);
  });

  it('a refund that commits has exactly one audit row; one refused for its amount has none', async () => {
    const { id } = await createSettledTransaction(t, shop, { amount: 2000 });
    const done = await t.call('POST', `/api/v1/transactions/${id}/refunds`, { key: shop.secretKey, body: {} });
    expect(done.status).toBe(200);
    const again = await t.call('POST', `/api/v1/transactions/${id}/refunds`, { key: shop.secretKey, body: {} });
    expect(again.status).toBe(409);
    const trail = await trailOf('refund.created');
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({
      actor: `key:sk_…${shop.secretKey.slice(-4)}`,
      outcome: 'success',
      detail: { transaction: id, refund: done.json.id, amount: 2000 },
    });
  });

  it('webhook endpoints: created and deleted with one audit row each, or not at all', async () => {
    const endpoints = async () =>
      (await t.call('GET', '/api/v1/webhook-endpoints', { key: shop.secretKey })).json.data as { id: string }[];
    const create = () =>
      t.call('POST', '/api/v1/webhook-endpoints', {
        key: shop.secretKey,
        body: { url: 'https://shop.example/hooks', enabled_events: ['*'] },
      });
    await refuseAuditRows();
    expect((await create()).status).toBeGreaterThanOrEqual(500);
    expect(await endpoints()).toEqual([]);
    await sql`drop trigger if exists refuse_audit${sql.raw(engine === 'sqlite' ? '' : ' on audit_events')}`.execute(
      t.server.services.database.db,
    );
    const made = await create();
    expect(made.status).toBe(200);
    await refuseAuditRows();
    expect(
      (await t.call('DELETE', `/api/v1/webhook-endpoints/${made.json.id}`, { key: shop.secretKey })).status,
    ).toBeGreaterThanOrEqual(500);
    expect(await endpoints()).toHaveLength(1);
    expect(await trailOf('webhook_endpoint.created')).toHaveLength(1);
    expect(await trailOf('webhook_endpoint.deleted')).toEqual([]);
  });

  it('allowed origins: changed with one audit row, or not at all', async () => {
    const { repos, clock: now } = t.server.services;
    const set = (origins: string[]) =>
      setAllowedOrigins(repos.allowedOrigins, shop.id, origins, { by: { actor: CLI_ACTOR }, now: now.now() });
    await refuseAuditRows();
    await expect(set(['https://shop.example'])).rejects.toThrow(/audit refused/);
    expect((await repos.accounts.find(shop.id))?.allowedOrigins).toEqual([]);
    expect(await trailOf('allowed_origins.changed')).toEqual([]);
    await sql`drop trigger if exists refuse_audit${sql.raw(engine === 'sqlite' ? '' : ' on audit_events')}`.execute(
      t.server.services.database.db,
    );
    await set(['https://shop.example']);
    expect((await repos.accounts.find(shop.id))?.allowedOrigins).toEqual(['https://shop.example']);
    const trail = await trailOf('allowed_origins.changed');
    expect(trail).toHaveLength(1);
    expect(trail[0]?.detail).toEqual({ origins: 'https://shop.example' });
  });
});
