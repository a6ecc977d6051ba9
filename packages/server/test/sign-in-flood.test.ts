import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { PasswordHashingBusy, PasswordHashPool, passwordHashPool } from '../src/crypto/password-hash-pool.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent, encryptCard } from './support/widget-client.ts';

/**
 * Issue 25 item 1: 150 sign-ins at once ran 150 scrypts of 32 MiB on libuv's pool, the pool
 * that decrypts card JWEs, and held a confirm for 47.6 s. Hashing now runs on threads of its
 * own, at most `threads + queue` at once (decision 0202).
 */
describe.each(ENGINES)('a sign-in flood and card payments (%s)', (engine) => {
  const { t } = useTestServer(engine);

  it('confirms are answered while 150 sign-ins are being hashed; the sign-ins past the pool get 503', async () => {
    const shop = await t.newAccount();
    const ready = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const intent = await createIntent(t, shop.secretKey);
        return { intent, jwe: await encryptCard(t, intent.client_secret, card('4242424242424242')) };
      }),
    );
    const pay = async (i: number) => {
      const { intent, jwe } = ready[i] as (typeof ready)[number];
      const res = await confirm(t, shop.clientKey, intent.client_secret, null, { jwe });
      expect(res.json.status).toBe('succeeded');
    };
    for (const i of [0, 1, 2]) await pay(i);

    // 150 distinct addresses and emails: no per-network or per-email limit stops any of them.
    const flood = Array.from({ length: 150 }, (_, i) =>
      signInFrom(`127.0.${5 + Math.floor(i / 100)}.${(i % 100) + 1}`, t.url, `flood${i}@x.example`, 'wrong password!'),
    );
    await expect.poll(() => passwordHashPool().inFlight, { interval: 5 }).toBeGreaterThan(0);
    for (const i of [3, 4, 5]) await pay(i);
    // Answered while the admitted sign-ins are still being hashed (9 scrypts of about a third of
    // a second each, one at a time): the payments did not wait behind them. No wall-clock bound
    // (decision 0272): a loaded machine slows the hashes as much as the payments.
    expect(passwordHashPool().inFlight).toBeGreaterThan(0);
    const statuses = await Promise.all(flood);

    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(passwordHashPool().inFlight).toBe(0);
  }, 120_000);
});

describe.each(ENGINES)('the per-network limit of sign-in requests (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 6, 10, 0, 0));
  const { t } = useTestServer(engine, { clock, config: { signInRateLimit: 3 } });

  it('admits 3 sign-in requests a minute from one network, then 429 until the minute ends', async () => {
    clock.advance(15_000);
    for (let i = 0; i < 3; i++)
      expect(await signInFrom('127.0.7.1', t.url, `a${i}@x.example`, 'wrong password!')).toBe(401);
    const refused = await signInFull('127.0.7.1', t.url, 'a9@x.example', 'wrong password!');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('45');
    expect(refused.body).toContain('Too many sign-ins from your network');
    expect(await signInFrom('127.0.7.2', t.url, 'b@x.example', 'wrong password!')).toBe(401);
    clock.advance(45_000 - 1);
    expect(await signInFrom('127.0.7.1', t.url, 'a9@x.example', 'wrong password!')).toBe(429);
    clock.advance(1);
    expect(await signInFrom('127.0.7.1', t.url, 'a9@x.example', 'wrong password!')).toBe(401);
    clock.advance(MINUTE);
  }, 60_000);
});

describe('the password-hashing pool', () => {
  it('hashes on threads of its own, at most threads + queue at once; one more is refused, not queued', async () => {
    const pool = new PasswordHashPool({ threads: 1, queue: 2 });
    try {
      const params = { N: 2 ** 14, r: 8, p: 1 };
      const salt = Buffer.alloc(16, 1);
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => pool.derive(`password ${i}`, salt, 32, params)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused).toHaveLength(2);
      for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(PasswordHashingBusy);
      // The same answer as Node's own scrypt, and free again once the burst is over.
      const { scryptSync } = await import('node:crypto');
      const again = await pool.derive('password 0', salt, 32, params);
      expect(again.equals(scryptSync('password 0', salt, 32, { ...params, maxmem: 64 * 1024 * 1024 }))).toBe(true);
      expect(pool.inFlight).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('reads its settings and the sign-in limit at their edges', () => {
    expect(loadConfig({}).passwordHashing).toEqual({ threads: 1, queue: 8 });
    expect(loadConfig({}).signInRateLimit).toBe(20);
    expect(loadConfig({ OBOLUS_SIGN_IN_RATE_LIMIT: 'off' }).signInRateLimit).toBe(0);
    expect(loadConfig({ OBOLUS_SIGN_IN_RATE_LIMIT: '1' }).signInRateLimit).toBe(1);
    expect(() => loadConfig({ OBOLUS_SIGN_IN_RATE_LIMIT: '0' })).toThrow('OBOLUS_SIGN_IN_RATE_LIMIT');
    expect(loadConfig({ OBOLUS_PASSWORD_HASH_THREADS: '64', OBOLUS_PASSWORD_HASH_QUEUE: '0' }).passwordHashing).toEqual(
      {
        threads: 64,
        queue: 0,
      },
    );
    expect(() => loadConfig({ OBOLUS_PASSWORD_HASH_THREADS: '0' })).toThrow('OBOLUS_PASSWORD_HASH_THREADS');
    expect(() => loadConfig({ OBOLUS_PASSWORD_HASH_THREADS: '65' })).toThrow('OBOLUS_PASSWORD_HASH_THREADS');
    expect(() => loadConfig({ OBOLUS_PASSWORD_HASH_QUEUE: '-1' })).toThrow('OBOLUS_PASSWORD_HASH_QUEUE');
  });
});

function signInFull(localAddress: string, url: string, email: string, password: string) {
  const body = new URLSearchParams({ email, password }).toString();
  const target = new URL(`${url}/dashboard/sign-in`);
  return new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: target.origin },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const signInFrom = async (localAddress: string, url: string, email: string, password: string) =>
  (await signInFull(localAddress, url, email, password)).status;
