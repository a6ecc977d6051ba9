import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { parseCheckoutConfig } from '../src/connectors/checkout/config.ts';
import { parseStripeConfig } from '../src/connectors/stripe/config.ts';
import { descriptorPrefixOf, stripeSuffixOf, suffixRoom } from '../src/connectors/stripe/descriptor.ts';

/**
 * Stripe's statement descriptor rules (decision 0198): prefix + `* ` + suffix at most 22
 * characters, Latin, at least one letter, none of < > \ ' " *. Adapted where the meaning stays,
 * refused (at intent creation: live-stripe.test.ts) where it cannot.
 */
describe('statement_descriptor_suffix from an intent descriptor', () => {
  it('the room is what the prefix leaves: 22 - prefix - 2; the longest prefix (10) leaves 10', () => {
    expect(suffixRoom(10)).toBe(10);
    expect(suffixRoom(2)).toBe(18);
    expect(stripeSuffixOf('OBOLUS SHOP ORDER 1042')).toEqual({ ok: true, sent: 'OBOLUS SHO' });
    expect(stripeSuffixOf('OBOLUS SHOP ORDER 1042', 4)).toEqual({ ok: true, sent: 'OBOLUS SHOP ORDE' });
    // At the edge: exactly the room, and one more.
    expect(stripeSuffixOf('ABCDEFGHIJ')).toEqual({ ok: true, sent: 'ABCDEFGHIJ' });
    expect(stripeSuffixOf('ABCDEFGHIJK')).toEqual({ ok: true, sent: 'ABCDEFGHIJ' });
  });

  it('accents come off, the characters Stripe forbids are dropped, spaces collapse', () => {
    expect(stripeSuffixOf('Café Müller', 2)).toEqual({ ok: true, sent: 'Cafe Muller' });
    expect(stripeSuffixOf('Straße 12', 2)).toEqual({ ok: true, sent: 'Strasse 12' });
    expect(stripeSuffixOf(`Joe's <Shop> "X"*`, 2)).toEqual({ ok: true, sent: 'Joes Shop X' });
    expect(stripeSuffixOf('A\\B   \t C', 2)).toEqual({ ok: true, sent: 'AB C' });
  });

  it('refused: another script, or no letter in what fits', () => {
    expect(stripeSuffixOf('東京ショップ')).toMatchObject({ ok: false, message: expect.stringContaining('Latin') });
    expect(stripeSuffixOf('Ελληνικά')).toMatchObject({ ok: false });
    expect(stripeSuffixOf('12345 678')).toMatchObject({ ok: false, message: expect.stringContaining('letter') });
    // The letter comes after the room: what would be printed has none.
    expect(stripeSuffixOf('1234567890 SHOP')).toMatchObject({ ok: false });
    expect(stripeSuffixOf('123456789 SHOP')).toMatchObject({ ok: false });
    expect(stripeSuffixOf('12345678 SHOP')).toEqual({ ok: true, sent: '12345678 S' });
  });
});

describe('OBOLUS_STRIPE_DESCRIPTOR_PREFIX', () => {
  it('2 to 10 Latin characters with a letter, none Stripe forbids; unset leaves room for the longest', () => {
    expect(descriptorPrefixOf(undefined)).toBeNull();
    expect(descriptorPrefixOf('AB')).toBe('AB');
    expect(descriptorPrefixOf('ABCDEFGHIJ')).toBe('ABCDEFGHIJ');
    for (const bad of ['A', 'ABCDEFGHIJK', '12', 'A*', 'É1']) {
      expect(() => descriptorPrefixOf(bad)).toThrow(/OBOLUS_STRIPE_DESCRIPTOR_PREFIX/);
    }
  });

  it('is read with the Stripe connector', () => {
    const env = {
      OBOLUS_STRIPE_SECRET_KEY: 'sk_live_51AbCdEfGhIjKlMnOpQrStUv',
      OBOLUS_STRIPE_WEBHOOK_SECRET: 'whsec_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
      OBOLUS_STRIPE_DESCRIPTOR_PREFIX: 'ACME',
    };
    expect(loadConfig(env).liveConnector).toMatchObject({ stripe: { descriptorPrefix: 'ACME' } });
  });
});

describe('sandbox configurations, for obolus verify-connector only', () => {
  it('Stripe: test-mode keys only, no webhook secret needed', () => {
    expect(parseStripeConfig({ OBOLUS_STRIPE_SECRET_KEY: 'sk_test_abc123' }, { sandbox: true }).secretKey).toBe(
      'sk_test_abc123',
    );
    expect(() => parseStripeConfig({ OBOLUS_STRIPE_SECRET_KEY: 'sk_live_abc123' }, { sandbox: true })).toThrow(
      /test-mode key/,
    );
  });

  it('Checkout.com: sandbox keys only, the sandbox API by default; OBOLUS_CHECKOUT_3DS read', () => {
    const key = `sk_sbox_${'a'.repeat(27)}`;
    const env = { OBOLUS_CHECKOUT_SECRET_KEY: key, OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID: `pc_${'a'.repeat(26)}` };
    expect(parseCheckoutConfig(env, { sandbox: true })).toMatchObject({
      secretKey: key,
      apiBase: new URL('https://api.sandbox.checkout.com'),
      threeDS: 'attempt',
    });
    expect(() =>
      parseCheckoutConfig({ ...env, OBOLUS_CHECKOUT_SECRET_KEY: `sk_${'a'.repeat(27)}` }, { sandbox: true }),
    ).toThrow(/sandbox key/);
    expect(parseCheckoutConfig({ ...env, OBOLUS_CHECKOUT_3DS: 'always' }, { sandbox: true }).threeDS).toBe('always');
    expect(() => parseCheckoutConfig({ ...env, OBOLUS_CHECKOUT_3DS: 'never' }, { sandbox: true })).toThrow(
      /OBOLUS_CHECKOUT_3DS must be attempt or always/,
    );
  });
});
