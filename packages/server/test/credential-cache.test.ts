import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { rollSecretKey, setAccountStatus } from '../src/domain/accounts.ts';
import { ACCOUNT_CACHE_TTL_MS } from '../src/store/account-cache.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('credential changes reach a running server (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 4));
  const { t } = useTestServer(engine, { clock });
  const list = (key: string) => t.call('GET', '/api/v1/payment-intents', { key });

  it('a deactivation from another process is enforced within the cache bound', async () => {
    const shop = await t.newAccount();
    expect((await list(shop.secretKey)).status).toBe(200);
    // As the CLI does it: from another process, straight in the database.
    await setAccountStatus(t.server.services.repos.accounts, shop.id, 'inactive');
    clock.advance(ACCOUNT_CACHE_TTL_MS + 1);
    expect((await list(shop.secretKey)).status).toBe(403);
    await setAccountStatus(t.server.services.repos.accounts, shop.id, 'active');
    clock.advance(ACCOUNT_CACHE_TTL_MS + 1);
    expect((await list(shop.secretKey)).status).toBe(200);
  });

  it('a deactivation made in the serving process is enforced on the next request', async () => {
    const shop = await t.newAccount();
    expect((await list(shop.secretKey)).status).toBe(200);
    await setAccountStatus(t.server.services.credentials, shop.id, 'inactive');
    expect((await list(shop.secretKey)).status).toBe(403);
  });

  it('a key rolled without grace stops working within the same bound; the new key works at once', async () => {
    const shop = await t.newAccount();
    expect((await list(shop.secretKey)).status).toBe(200);
    const { secretKey } = await rollSecretKey(t.server.services.repos.accounts, clock, shop.id, 0);
    expect((await list(secretKey)).status).toBe(200);
    clock.advance(ACCOUNT_CACHE_TTL_MS + 1);
    expect((await list(shop.secretKey)).status).toBe(401);
    expect((await list(secretKey)).status).toBe(200);
  });

  it('a rolled key keeps working for its grace period, then not', async () => {
    const shop = await t.newAccount();
    const { secretKey } = await rollSecretKey(t.server.services.repos.accounts, clock, shop.id, 2);
    clock.advance(2 * 3_600_000 - 1000);
    expect((await list(shop.secretKey)).status).toBe(200);
    expect((await list(secretKey)).status).toBe(200);
    clock.advance(2000 + ACCOUNT_CACHE_TTL_MS);
    expect((await list(shop.secretKey)).status).toBe(401);
  });

  it('a remembered key stops working the moment its grace period ends, not a cache lifetime later', async () => {
    const shop = await t.newAccount();
    await rollSecretKey(t.server.services.repos.accounts, clock, shop.id, 1);
    clock.advance(3_600_000 - 1);
    // Remembered from here on, for ACCOUNT_CACHE_TTL_MS: the next request is admitted from memory.
    expect((await list(shop.secretKey)).status).toBe(200);
    clock.advance(2);
    expect((await list(shop.secretKey)).status).toBe(401);
  });
});
