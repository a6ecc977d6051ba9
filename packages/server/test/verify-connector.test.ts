import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVerifyConnector } from '../src/cli/verify-connector.ts';
import { CHECKOUT_CHANNEL, startTestCheckout } from './support/checkout-double.ts';
import { runCli } from './support/cli.ts';
import { startTestStripe } from './support/stripe-double.ts';

/**
 * `obolus verify-connector` against the doubles (decision 0190): the same script an operator
 * runs against their own sandbox account. Every exchange it makes is held against the
 * acquirers' definitions by the doubles' contract watch.
 */
const STRIPE_TEST_KEY = 'sk_test_verifyConnector0000000000';
const CHECKOUT_SANDBOX_KEY = `sk_sbox_${'v'.repeat(27)}`;

let stripe: Awaited<ReturnType<typeof startTestStripe>>;
let checkout: Awaited<ReturnType<typeof startTestCheckout>>;
beforeAll(async () => {
  [stripe, checkout] = await Promise.all([
    startTestStripe({ secretKey: STRIPE_TEST_KEY }),
    startTestCheckout({ secretKey: CHECKOUT_SANDBOX_KEY }),
  ]);
});
afterAll(async () => {
  await stripe?.close();
  await checkout?.close();
});

const stripeEnv = () => ({ OBOLUS_STRIPE_SECRET_KEY: STRIPE_TEST_KEY, OBOLUS_STRIPE_API_BASE: stripe.url });
const checkoutEnv = () => ({
  OBOLUS_CHECKOUT_SECRET_KEY: CHECKOUT_SANDBOX_KEY,
  OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID: CHECKOUT_CHANNEL,
  OBOLUS_CHECKOUT_API_BASE: checkout.url,
});

async function verify(connector: 'stripe' | 'checkout', env: Record<string, string>) {
  const progress: string[] = [];
  const out: string[] = [];
  const code = await runVerifyConnector(connector, env, {
    progress: (line) => progress.push(line),
    out: (text) => out.push(text),
  });
  return { code, progress: progress.join('\n'), out: out.join('\n') };
}

/** The table's rows (up to the first blank line) as [step, agrees]. */
const verdicts = (output: string) => {
  const lines = output.split('\n').slice(2);
  return lines.slice(0, lines.indexOf('')).map((line) => [line.split(/\s{2,}/)[0], line.split(/\s{2,}/).at(-1)]);
};

describe('obolus verify-connector', () => {
  it('Checkout.com: every step agrees against the double; the checks only an account can settle are listed', async () => {
    const { code, out, progress } = await verify('checkout', checkoutEnv());
    expect(progress).toContain(`against ${checkout.url} (sandbox keys)`);
    expect(verdicts(out)).toEqual([
      ['approve', 'yes'],
      ['decline', 'yes'],
      ['insufficient funds', 'yes'],
      ['3-D Secure', 'yes'],
      ['refund 10.00 of it', 'yes'],
      ['void an authorization', 'yes'],
      ['lookup by reference', 'yes'],
      ['payment_refunded shape', 'by hand'],
      ['card not enrolled in 3-D Secure', 'by hand'],
    ]);
    expect(out).toMatch(/approve\s+4242424242424242\s+Authorized 10000\s+approved \(authorized\)/);
    expect(out).toContain("- payment_refunded shape: the refund step's webhook");
    expect(out).toContain('Every step agrees.');
    expect(code).toBe(0);
    checkout.contract.assertClean();
  });

  it('a step that does not agree is shown and fails the command', async () => {
    // The decline card's payment meets a 429: unknown, not the decline expected.
    checkout.arm('create', { fault: 'rate_limit_429' }, 1, 1);
    const { code, out } = await verify('checkout', checkoutEnv());
    expect(verdicts(out).slice(0, 2)).toEqual([
      ['approve', 'yes'],
      ['decline', 'NO'],
    ]);
    expect(out).toContain('1 step(s) do not agree');
    expect(code).toBe(1);
  });

  it('refuses live keys: it never runs against real money', async () => {
    await expect(
      verify('checkout', { ...checkoutEnv(), OBOLUS_CHECKOUT_SECRET_KEY: `sk_${'v'.repeat(27)}` }),
    ).rejects.toThrow(/OBOLUS_CHECKOUT_SECRET_KEY must be a sandbox key/);
  });

  it('`npx obolus verify-connector --connector stripe`: every step agrees against the Stripe double', async () => {
    const { code, stdout, stderr } = await runCli(['verify-connector', '--connector', 'stripe'], stripeEnv());
    expect(stderr).toContain('lookup by reference: yes');
    expect(verdicts(stdout)).toEqual([
      ['approve', 'yes'],
      ['decline', 'yes'],
      ['insufficient funds', 'yes'],
      ['3-D Secure', 'yes'],
      ['refund 10.00 of it', 'yes'],
      ['void an authorization', 'yes'],
      ['lookup by reference', 'yes'],
      ['webhook events', 'by hand'],
    ]);
    expect(code).toBe(0);
    stripe.contract.assertClean();
  });

  it('a wrong connector name or a live Stripe key is refused with one line', async () => {
    const wrong = await runCli(['verify-connector', '--connector', 'paypal'], {});
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Allowed choices are stripe, checkout/);
    const live = await runCli(['verify-connector', '--connector', 'stripe'], {
      ...stripeEnv(),
      OBOLUS_STRIPE_SECRET_KEY: 'sk_live_verifyConnector000000000',
    });
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(/OBOLUS_STRIPE_SECRET_KEY must be a test-mode key/);
    expect(live.stderr).not.toContain('sk_live_verifyConnector000000000');
  });
});
