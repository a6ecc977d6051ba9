import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../src/clock.ts';
import { CardKeyring } from '../src/crypto/card-keyring.ts';
import { ENGINES } from './support/engines.ts';
import { startTestServer, type TestAccount, type TestServer } from './support/server.ts';
import { card, confirm, createIntent, encryptCard } from './support/widget-client.ts';

describe.each(ENGINES)('card-encryption key rotation (%s)', (engine) => {
  let t: TestServer;
  let shop: TestAccount;
  const clock = new ManualClock(Date.UTC(2026, 10, 3));
  beforeAll(async () => {
    t = await startTestServer(engine, { clock });
    shop = await t.newAccount();
  });
  afterAll(() => t.close());

  it('publishes one RSA-OAEP-256 encryption key with a key id, and no private parts', async () => {
    const res = await t.call('GET', '/embed/v1/jwks.json');
    expect(res.headers.get('cache-control')).toContain('max-age');
    expect(res.json.keys).toHaveLength(1);
    const [key] = res.json.keys;
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RSA-OAEP-256', use: 'enc', kid: expect.stringMatching(/^ck_/) });
    for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(part);
  });

  it('after a rotation the old key decrypts during the grace period, then not', async () => {
    const oldJwk = (await t.call('GET', '/embed/v1/jwks.json')).json.keys[0];
    // Another process (the CLI) rotates; this server learns of it from the database.
    const cli = new CardKeyring(t.server.services.repos.encryptionKeys, clock);
    const newKid = await cli.rotate(24 * HOUR);

    const before = await createIntent(t, shop.secretKey);
    const oldJwe = await encryptCard(t, before.id, card('4242424242424242'), { jwk: oldJwk, at: clock.now() });
    expect((await confirm(t, shop.clientKey, before.client_secret, null, { jwe: oldJwe })).json.status).toBe(
      'succeeded',
    );
    // Each process rereads the keys within a minute.
    clock.advance(61_000);
    const jwks = (await t.call('GET', '/embed/v1/jwks.json')).json.keys.map((k: { kid: string }) => k.kid);
    expect(jwks).toEqual([newKid, oldJwk.kid]);
    const fresh = await createIntent(t, shop.secretKey);
    const newJwe = await encryptCard(t, fresh.id, card('4242424242424242'), { at: clock.now() });
    expect((await confirm(t, shop.clientKey, fresh.client_secret, null, { jwe: newJwe })).json.status).toBe(
      'succeeded',
    );

    clock.advance(24 * HOUR + 1);
    const late = await createIntent(t, shop.secretKey);
    const lateJwe = await encryptCard(t, late.id, card('4242424242424242'), { jwk: oldJwk, at: clock.now() });
    const res = await confirm(t, shop.clientKey, late.client_secret, null, { jwe: lateJwe });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: 'card_encryption_invalid',
      message: expect.stringContaining('retired'),
    });
    expect((await t.call('GET', '/embed/v1/jwks.json')).json.keys.map((k: { kid: string }) => k.kid)).toEqual([newKid]);
  });
});
