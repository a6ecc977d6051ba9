import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { createProcessorRegistry } from '../src/connectors/registry.ts';
import { masterKeyOf, newMasterKeyText, SecretBox } from '../src/crypto/master-key.ts';
import { createAccount } from '../src/domain/accounts.ts';
import { createPaymentIntent, type PaymentIntent } from '../src/domain/intents.ts';
import type { AccountId } from '../src/ids.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../src/store/database.ts';
import { createRepositories, type Repositories } from '../src/store/repositories.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from './support/engines.ts';

/** No live connector: the intents these tests make are sandbox ones. */
const sandboxOnly = createProcessorRegistry();

/** The repository contract: the same expectations hold on every engine. */
describe.each(ENGINES)('repository contract (%s)', (engine) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let repos: Repositories;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  beforeAll(async () => {
    testDb = await createTestDatabase(engine);
    handle = openDatabase(testDb.url, testDb.schema ? { schema: testDb.schema } : {});
    await migrateToLatest(handle.db);
    repos = createRepositories(handle.db, new SecretBox([masterKeyOf(newMasterKeyText(), 'test key')]));
  });
  afterAll(async () => {
    await handle.close();
    await testDb.drop();
  });

  it('migrations are idempotent', async () => {
    expect((await migrateToLatest(handle.db)).applied).toEqual([]);
  });

  it('accounts round-trip with pricing and origins', async () => {
    const { account } = await createAccount(repos.accounts, clock, {
      name: 'Round Trip',
      email: 'rt@example.com',
      pricing: { bps: 150, fixedMinor: 10 },
      allowedOrigins: ['https://shop.example'],
    });
    expect(await repos.accounts.find(account.id)).toEqual(account);
    expect(await repos.accounts.findByClientKey(account.clientKey)).toEqual(account);
    expect(await repos.accounts.setStatus(account.id, 'inactive')).toBe(true);
    expect((await repos.accounts.find(account.id))?.status).toBe('inactive');
    expect(await repos.accounts.setStatus('acct_missing' as AccountId, 'inactive')).toBe(false);
  });

  it('intents round-trip every field, and find is scoped by account', async () => {
    const { account } = await createAccount(repos.accounts, clock, { name: 'A', email: 'a@example.com' });
    const { account: other } = await createAccount(repos.accounts, clock, {
      name: 'B',
      email: 'b@example.com',
    });
    const intent = await createPaymentIntent(
      repos.intents,
      clock,
      account,
      {
        amount: 99_999_999,
        currency: 'USD',
        mode: 'sandbox',
        reference: 'ref',
        externalid: 'ext',
        descriptor: 'DESCR',
        description: 'descr',
        theme: 'light',
        metadata: { a: 'b', ключ: 'значение' },
      },
      sandboxOnly,
    );
    const found = await repos.intents.find(account.id, intent.id);
    expect(found).toEqual(intent);
    expect(typeof found?.createdAt).toBe('number');
    expect(await repos.intents.find(other.id, intent.id)).toBeUndefined();
  });

  it('list pages newest first without overlap', async () => {
    const { account } = await createAccount(repos.accounts, clock, { name: 'L', email: 'l@example.com' });
    const made: PaymentIntent[] = [];
    for (let i = 0; i < 5; i++) {
      const input = { amount: i + 1, currency: 'USD', mode: 'sandbox' as const };
      made.push(await createPaymentIntent(repos.intents, clock, account, input, sandboxOnly));
      clock.advance(1000);
    }
    const first = await repos.intents.list(account.id, 2);
    expect(first.data.map((i) => i.amount)).toEqual([5, 4]);
    expect(first.hasMore).toBe(true);
    const last = await repos.intents.list(account.id, 10, first.data[1]);
    expect(last.data.map((i) => i.amount)).toEqual([3, 2, 1]);
    expect(last.hasMore).toBe(false);
  });

  it('an idempotency key is claimed by exactly one of many concurrent claimers', async () => {
    const acctX = 'acct_x' as AccountId;
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => repos.idempotency.claim(acctX, 'race', 'h', clock.now())),
    );
    expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
    await repos.idempotency.complete(acctX, 'race', 201, '{"ok":true}');
    expect(await repos.idempotency.claim(acctX, 'race', 'h', clock.now())).toEqual({
      kind: 'replay',
      statusCode: 201,
      body: '{"ok":true}',
    });
    expect(await repos.idempotency.claim(acctX, 'race', 'other', clock.now())).toEqual({
      kind: 'mismatch',
    });
    expect(await repos.idempotency.pruneBefore(clock.now() + 1)).toBeGreaterThanOrEqual(1);
  });

  it('a rolled key keeps the old one valid for the grace period only', async () => {
    const { account } = await createAccount(repos.accounts, clock, { name: 'K', email: 'k@example.com' });
    const keys = await handle.db.selectFrom('secret_keys').selectAll().where('account_id', '=', account.id).execute();
    expect(keys).toHaveLength(1);
    const newKey = {
      digest: 'f'.repeat(64),
      accountId: account.id,
      last4: 'ffff',
      createdAt: clock.now(),
      expiresAt: null,
    };
    await repos.accounts.replaceSecretKey(account.id, newKey, clock.now() + 5000);
    expect((await repos.accounts.findKey(keys[0]!.digest))?.expiresAt).toBe(clock.now() + 5000);
    expect((await repos.accounts.findKey(newKey.digest))?.expiresAt).toBeNull();
  });
});
