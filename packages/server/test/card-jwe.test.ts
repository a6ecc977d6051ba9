import { generateKeyPairSync } from 'node:crypto';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { type CardJweAlg, decryptCompact, JWE_ECDH, JWE_RSA, privateKeyOf } from '../src/crypto/card-jwe.ts';
import { newCardKeyPair } from '../src/crypto/card-keyring.ts';

/**
 * The card-decryption threads' own JWE decryption (decision 0251), against jose's encryption
 * (the widget's library, on WebCrypto): every part of a ciphertext matters, and nothing but
 * the two algorithm pairs the widget uses is read.
 */
const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123', name: 'Ada' };
const keys = { [JWE_ECDH]: newCardKeyPair(0, JWE_ECDH), [JWE_RSA]: newCardKeyPair(0, JWE_RSA) };

async function encrypt(alg: string, to: JWK, header: Record<string, unknown> = {}, plain: unknown = CARD) {
  const encrypter = new CompactEncrypt(new TextEncoder().encode(JSON.stringify(plain))).setProtectedHeader({
    alg,
    enc: 'A256GCM',
    kid: 'ck_x',
    ...header,
  });
  return encrypter.encrypt(await importJWK(to, alg));
}

const open = (jwe: string, alg: CardJweAlg) =>
  JSON.parse(Buffer.from(decryptCompact(jwe, privateKeyOf(keys[alg].privateJwk as never), alg)).toString());

/** `jwe` with part `index` (0 header … 4 tag) replaced by `to`. */
function withPart(jwe: string, index: number, to: string): string {
  const parts = jwe.split('.');
  parts[index] = to;
  return parts.join('.');
}

const flipFirst = (b64: string) => (b64[0] === 'A' ? 'B' : 'A') + b64.slice(1);

describe.each([JWE_ECDH, JWE_RSA] as const)('card JWE decryption, %s + A256GCM', (alg) => {
  const publicJwk = keys[alg].publicJwk;

  it('reads what jose encrypted, every time with fresh randomness', async () => {
    const first = await encrypt(alg, publicJwk);
    const second = await encrypt(alg, publicJwk);
    expect(first).not.toBe(second);
    expect(open(first, alg)).toEqual(CARD);
    expect(open(second, alg)).toEqual(CARD);
  });

  it.each([
    [0, 'the protected header'],
    [1, 'the encrypted key'],
    [2, 'the iv'],
    [3, 'the ciphertext'],
    [4, 'the tag'],
  ])('refuses a ciphertext whose part %i (%s) was changed', async (index) => {
    const jwe = await encrypt(alg, publicJwk);
    const part = jwe.split('.')[index] as string;
    expect(() => open(withPart(jwe, index, flipFirst(part)), alg)).toThrow();
  });

  it('refuses a header changed after encryption, even to valid JSON (the header is authenticated)', async () => {
    const jwe = await encrypt(alg, publicJwk, { payment_intent: 'pi_a' });
    const header = JSON.parse(Buffer.from(jwe.split('.')[0] as string, 'base64url').toString());
    const moved = Buffer.from(JSON.stringify({ ...header, payment_intent: 'pi_b' })).toString('base64url');
    expect(() => open(withPart(jwe, 0, moved), alg)).toThrow(/authenticate/);
  });

  it('refuses the key of the other algorithm, another key, and a wrong content encryption', async () => {
    const jwe = await encrypt(alg, publicJwk);
    const other = alg === JWE_ECDH ? JWE_RSA : JWE_ECDH;
    expect(() => decryptCompact(jwe, privateKeyOf(keys[other].privateJwk as never), other)).toThrow(/alg/);
    const stranger = newCardKeyPair(0, alg);
    expect(() => decryptCompact(jwe, privateKeyOf(stranger.privateJwk as never), alg)).toThrow();
    const cbc = await new CompactEncrypt(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg, enc: 'A256CBC-HS512' })
      .encrypt(await importJWK(publicJwk, alg));
    expect(() => open(cbc, alg)).toThrow(/enc/);
  });

  it('refuses a header marked critical, compression, and what is not a compact JWE', async () => {
    // jose refuses to make these itself: hand-made headers stand for a sender that would.
    const jwe = await encrypt(alg, publicJwk);
    for (const extra of [{ crit: ['x'], x: 1 }, { zip: 'DEF' }]) {
      const header = JSON.parse(Buffer.from(jwe.split('.')[0] as string, 'base64url').toString());
      const changed = Buffer.from(JSON.stringify({ ...header, ...extra })).toString('base64url');
      expect(() => open(withPart(jwe, 0, changed), alg)).toThrow(/crit|zip/);
    }
    for (const bad of ['', 'a.b.c', `${jwe}.x`, jwe.replace(/\./g, '..'), jwe.replace(/^./, '=')]) {
      expect(() => open(bad, alg)).toThrow();
    }
  });
});

describe('card JWE decryption, ECDH-ES+A256KW specifics', () => {
  const publicJwk = keys[JWE_ECDH].publicJwk;
  const headerOf = (jwe: string) => JSON.parse(Buffer.from(jwe.split('.')[0] as string, 'base64url').toString());
  const withHeader = (jwe: string, header: unknown) =>
    withPart(jwe, 0, Buffer.from(JSON.stringify(header)).toString('base64url'));

  it('reads the party infos (apu, apv) into the key derivation, as RFC 7518 §4.6.2 says', async () => {
    const apu = new TextEncoder().encode('Alice');
    const apv = new TextEncoder().encode('Bob');
    const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(CARD)))
      .setProtectedHeader({ alg: JWE_ECDH, enc: 'A256GCM' })
      .setKeyManagementParameters({ apu, apv })
      .encrypt(await importJWK(publicJwk, JWE_ECDH));
    expect(headerOf(jwe)).toMatchObject({ apu: 'QWxpY2U', apv: 'Qm9i' });
    expect(open(jwe, JWE_ECDH)).toEqual(CARD);
  });

  it('refuses an ephemeral key off the curve, on another curve, or missing', async () => {
    const jwe = await encrypt(JWE_ECDH, publicJwk);
    const header = headerOf(jwe);
    const offCurve = { ...header.epk, y: flipFirst(header.epk.y) };
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
    for (const epk of [offCurve, p384, { ...header.epk, crv: 'P-384' }, undefined, 'x', { kty: 'EC', crv: 'P-256' }]) {
      expect(() => open(withHeader(jwe, { ...header, epk }), JWE_ECDH)).toThrow();
    }
  });
});
