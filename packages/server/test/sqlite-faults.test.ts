import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from './support/server.ts';
import { makeVolume, truncateLog } from './support/volume.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

/**
 * The SQLite file's volume fills up, then turns read-only (ext4's errors=remount-ro, as after a
 * disk error): every write is a clear 503 database_unavailable and a log line, nothing is
 * corrupted, and writes resume when space returns (decision 0220). The volume is a small ext4
 * image of the test's own, loop-mounted: root only.
 */
const volume = makeVolume();
if (!volume) console.warn('sqlite-faults: skipped, a loop-mounted volume needs root (mount -o loop)');

describe.skipIf(!volume)('SQLite on a full, then read-only volume', () => {
  const vol = volume as NonNullable<typeof volume>;
  let t: TestServer;
  let shop: TestAccount;
  let file: string;
  const acknowledged: string[] = [];
  beforeAll(async () => {
    file = join(vol.mount, 'obolus.db');
    t = await startTestServer('sqlite', { config: { databaseUrl: file } });
    shop = await t.newAccount();
    for (let i = 0; i < 3; i++) acknowledged.push((await createIntent(t, shop.secretKey)).id);
  });
  afterAll(async () => {
    await t?.close().catch(() => {});
    volume?.remove();
  });

  const create = () =>
    t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 1500, currency: 'USD', mode: 'sandbox' },
    });

  const expectUnavailable = (res: { status: number; json: any; headers: Headers }) => {
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.json.error).toMatchObject({ type: 'server', code: 'database_unavailable' });
    expect(res.json.error.message).not.toMatch(/SQLITE|disk|full/i);
  };

  it('a full disk: writes are 503 with a log line, reads go on, and writes resume when space returns', async () => {
    truncateLog(file);
    const giveSpaceBack = vol.fill();

    const pending = await createIntent(t, shop.secretKey).catch(() => null);
    expect(pending).toBeNull();
    expectUnavailable(await create());
    expect(t.logs()).toMatch(/"code":"SQLITE_FULL".*request failed: database unavailable/);
    expect((await t.call('GET', `/api/v1/payment-intents/${acknowledged[0]}`, { key: shop.secretKey })).status).toBe(
      200,
    );

    giveSpaceBack();
    const created = await create();
    expect(created.status).toBe(200);
    acknowledged.push(created.json.id);
    const paid = await confirm(t, shop.clientKey, created.json.client_secret, card('4242424242424242'));
    expect(paid.json.status).toBe('succeeded');
  });

  it('a read-only volume: writes are 503 with a log line; the file is intact with every acknowledged intent', async () => {
    vol.breakDown();
    expect(execFileSync('findmnt', ['-n', '-o', 'OPTIONS', vol.mount]).toString()).toMatch(/emergency_ro|^ro/);
    expectUnavailable(await create());
    expect(t.logs()).toMatch(/"code":"SQLITE_(READONLY|IOERR)[A-Z_]*".*request failed: database unavailable/);
    expect((await t.call('GET', '/healthz')).status).toBe(200);

    await t.close().catch(() => {});
    vol.remount();
    const db = new SQLite(file);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = db.prepare('select id from payment_intents').pluck().all() as string[];
      for (const id of acknowledged) expect(ids).toContain(id);
    } finally {
      db.close();
    }
  });
});
