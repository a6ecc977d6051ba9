import { beforeAll, describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../src/clock.ts';
import { CardDecryptPool } from '../src/crypto/card-decrypt-pool.ts';
import { CardKeyring, newCardKeyPair, RSA_UPGRADE_GRACE_MS, UnreadableCiphertext } from '../src/crypto/card-keyring.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount, TestServer } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent, encryptCard } from './support/widget-client.ts';

const kidsOf = async (t: TestServer) =>
  (await t.call('GET', '/embed/v1/jwks.json')).json.keys.map((k: { kid: string }) => k.kid);

/** Pays a fresh intent with a card encrypted to `jwk` (default: the first key of the JWKS). */
async function payWith(t: TestServer, shop: TestAccount, clock: ManualClock, jwk?: Record<string, unknown>) {
  const intent = await createIntent(t, shop.secretKey);
  const jwe = await encryptCard(t, intent.id, card('4242424242424242'), { ...(jwk ? { jwk } : {}), at: clock.now() });
  return confirm(t, shop.clientKey, intent.client_secret, null, { jwe });
}

describe.each(ENGINES)('card-encryption key rotation (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 3));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });

  it('publishes one P-256 key for ECDH-ES+A256KW with a key id, and no private part', async () => {
    const res = await t.call('GET', '/embed/v1/jwks.json');
    expect(res.headers.get('cache-control')).toContain('max-age');
    expect(res.json.keys).toHaveLength(1);
    const [key] = res.json.keys;
    expect(key).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: expect.stringMatching(/^[\w-]{43}$/),
      y: expect.stringMatching(/^[\w-]{43}$/),
      alg: 'ECDH-ES+A256KW',
      use: 'enc',
      kid: expect.stringMatching(/^ck_/),
    });
    expect((await payWith(t, shop, clock)).json.status).toBe('succeeded');
  });

  it('after a rotation the old key decrypts during the grace period, then not', async () => {
    const oldJwk = (await t.call('GET', '/embed/v1/jwks.json')).json.keys[0];
    // Another process (the CLI) rotates; this server learns of it from the database.
    const cli = new CardKeyring(t.server.services.repos.encryptionKeys, clock);
    const newKid = await cli.rotate(24 * HOUR);

    expect((await payWith(t, shop, clock, oldJwk)).json.status).toBe('succeeded');
    // Each process rereads the keys within a minute.
    clock.advance(61_000);
    expect(await kidsOf(t)).toEqual([newKid, oldJwk.kid]);
    expect((await payWith(t, shop, clock)).json.status).toBe('succeeded');

    clock.advance(24 * HOUR + 1);
    const res = await payWith(t, shop, clock, oldJwk);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: 'card_encryption_invalid',
      param: 'card',
      message: expect.stringContaining('retired'),
    });
    expect(await kidsOf(t)).toEqual([newKid]);
  });

  it('retiring a previous key refuses its ciphertexts at once; the current key cannot be retired', async () => {
    const keyring = t.server.services.keyring;
    const previous = (await t.call('GET', '/embed/v1/jwks.json')).json.keys[0];
    const current = await keyring.rotate(24 * HOUR);
    expect((await payWith(t, shop, clock, previous)).json.status).toBe('succeeded');
    await expect(keyring.retire(current)).rejects.toThrow(/is the current key: rotate first/);
    expect(await keyring.retire(previous.kid)).toMatchObject({ kid: previous.kid, decryptsUntil: clock.now() });
    const res = await payWith(t, shop, clock, previous);
    expect(res.json.error).toMatchObject({
      code: 'card_encryption_invalid',
      message: expect.stringContaining('retired'),
    });
    expect(await keyring.retire(previous.kid)).toBeUndefined();
    expect(await keyring.retire('ck_unknown')).toBeUndefined();
    expect(await kidsOf(t)).toEqual([current]);
    const listed = await keyring.list();
    expect(listed[0]).toEqual({ kid: current, alg: 'ECDH-ES+A256KW', createdAt: clock.now(), decryptsUntil: null });
    expect(listed.find((k) => k.kid === previous.kid)).toEqual({
      kid: previous.kid,
      alg: 'ECDH-ES+A256KW',
      createdAt: expect.any(Number),
      decryptsUntil: clock.now(),
    });
  });

  it('a full card-decryption pool answers 503 service_busy with Retry-After, and nothing is charged', async () => {
    const services = t.server.services;
    const own = services.keyring;
    // No thread and no queue: every decryption is refused, as when all are busy.
    const full = new CardDecryptPool({ threads: 0, queue: 0 });
    services.keyring = new CardKeyring(services.repos.encryptionKeys, clock, () => full);
    try {
      const intent = await createIntent(t, shop.secretKey);
      const jwe = await encryptCard(t, intent.id, card('4242424242424242'), { at: clock.now() });
      const res = await confirm(t, shop.clientKey, intent.client_secret, null, { jwe });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.json.error).toMatchObject({ type: 'server', code: 'service_busy' });
      expect(await services.repos.transactions.forIntent(shop.id, intent.id)).toEqual([]);
      // The same ciphertext, once there is room, pays: nothing of it was used up.
      services.keyring = own;
      expect((await confirm(t, shop.clientKey, intent.client_secret, null, { jwe })).json.status).toBe('succeeded');
    } finally {
      services.keyring = own;
      await full.close();
    }
  });
});

/**
 * An installation from before P-256 keys (decision 0250): its current key is RSA, sealed under
 * the master key. At start it gets a P-256 key; the RSA key is published second and decrypts
 * for RSA_UPGRADE_GRACE_MS more, then is retired and its ciphertexts refused.
 */
describe.each(ENGINES)('an installation with an RSA key upgrades to P-256 (%s)', (engine) => {
  let shop: TestAccount;
  const clock = new ManualClock(Date.UTC(2026, 10, 4));
  const rsa = newCardKeyPair(clock.now() - HOUR, 'RSA-OAEP-256');
  const { t } = useTestServer(engine, { clock });
  beforeAll(async () => {
    // As the service left it before the upgrade: one current RSA key, nothing loaded yet.
    await t.server.services.repos.encryptionKeys.rotate(rsa, clock.now());
    shop = await t.newAccount();
  });

  it('two processes starting at once add one P-256 key, current, with the RSA key after it', async () => {
    const store = t.server.services.repos.encryptionKeys;
    const other = new CardKeyring(store, clock);
    const [here, there] = await Promise.all([t.server.services.keyring.publicJwks(), other.publicJwks()]);
    expect(here).toEqual(there);
    expect(here.map((k) => [k.kty, k.alg])).toEqual([
      ['EC', 'ECDH-ES+A256KW'],
      ['RSA', 'RSA-OAEP-256'],
    ]);
    expect(here[1]?.kid).toBe(rsa.kid);
    const stored = await store.usable(clock.now());
    expect(stored.map((k) => [k.kid, k.decryptsUntil])).toEqual([
      [here[0]?.kid, null],
      [rsa.kid, clock.now() + RSA_UPGRADE_GRACE_MS],
    ]);
    // A third start finds the P-256 key current and adds nothing.
    expect(await new CardKeyring(store, clock).publicJwks()).toEqual(here);
    // What decides the race: a key replaces the RSA key only while that is still current.
    expect(await store.rotate(newCardKeyPair(clock.now()), clock.now(), rsa.kid)).toBe(false);
    expect(await store.usable(clock.now())).toEqual(stored);
  });

  it('a card encrypted to the RSA key pays during the grace, and one to the P-256 key too', async () => {
    const [ec, rsaJwk] = (await t.call('GET', '/embed/v1/jwks.json')).json.keys;
    expect(rsaJwk.kid).toBe(rsa.kid);
    expect((await payWith(t, shop, clock, rsaJwk)).json.status).toBe('succeeded');
    expect((await payWith(t, shop, clock, ec)).json.status).toBe('succeeded');
    clock.advance(RSA_UPGRADE_GRACE_MS - 1);
    expect((await payWith(t, shop, clock, rsaJwk)).json.status).toBe('succeeded');
  });

  it("once retired, the RSA key's ciphertexts are refused, nothing is charged, and the JWKS drops it", async () => {
    const rsaJwk = { ...rsa.publicJwk, kid: rsa.kid };
    clock.advance(1);
    const intent = await createIntent(t, shop.secretKey);
    const jwe = await encryptCard(t, intent.id, card('4242424242424242'), { jwk: rsaJwk, at: clock.now() });
    const res = await confirm(t, shop.clientKey, intent.client_secret, null, { jwe });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      type: 'invalid_request',
      code: 'card_encryption_invalid',
      param: 'card',
      message: 'The encrypted card could not be read: the key it was encrypted to is retired; reload the widget.',
    });
    expect(await t.server.services.repos.transactions.forIntent(shop.id, intent.id)).toEqual([]);
    clock.advance(61_000);
    const keys = (await t.call('GET', '/embed/v1/jwks.json')).json.keys;
    expect(keys.map((k: { kty: string }) => k.kty)).toEqual(['EC']);
    // Another process that never knew the key refuses it too.
    const late = await new CardKeyring(t.server.services.repos.encryptionKeys, clock).decrypt(jwe).catch((e) => e);
    // The keyring says why in words; the domain answers it as card_encryption_invalid (above, over HTTP).
    expect(late).toBeInstanceOf(UnreadableCiphertext);
    expect(late.reason).toContain('retired');
  });
});
