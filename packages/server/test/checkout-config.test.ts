import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { LiveConnectorConfig } from '../src/connectors/live-config.ts';
import { killOnExit } from './support/children.ts';
import { OBOLUS_BIN } from './support/cli.ts';

const LIVE_KEY = `sk_${'abcdefgh'.repeat(3)}234`;
const CHANNEL = `pc_${'q'.repeat(26)}`;
const WEBHOOK = 'cko-webhook-secret-0123456789';
const env = (over: Record<string, string> = {}) => ({
  OBOLUS_LIVE_CONNECTOR: 'checkout',
  OBOLUS_CHECKOUT_SECRET_KEY: LIVE_KEY,
  OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID: CHANNEL,
  OBOLUS_CHECKOUT_WEBHOOK_SECRET: WEBHOOK,
  ...over,
});
const failure = (vars: Record<string, string>) => {
  try {
    loadConfig(vars);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};
const checkoutOf = (config: LiveConnectorConfig | null) => (config?.name === 'checkout' ? config.checkout : undefined);

describe('OBOLUS_LIVE_CONNECTOR=checkout and OBOLUS_CHECKOUT_*', () => {
  it('Checkout.com chosen by name or by its key alone; https://api.checkout.com by default', () => {
    const { OBOLUS_LIVE_CONNECTOR: _, ...byKey } = env();
    for (const vars of [env(), byKey]) {
      const checkout = checkoutOf(loadConfig(vars).liveConnector);
      expect(checkout).toMatchObject({ secretKey: LIVE_KEY, processingChannelId: CHANNEL, webhookSecret: WEBHOOK });
      expect(checkout?.apiBase.href).toBe('https://api.checkout.com/');
    }
  });

  it('both acquirers keyed without OBOLUS_LIVE_CONNECTOR is ambiguous and refused', () => {
    const { OBOLUS_LIVE_CONNECTOR: _, ...vars } = env({ OBOLUS_STRIPE_SECRET_KEY: 'sk_live_abc' });
    expect(failure(vars)).toMatch(/^OBOLUS_LIVE_CONNECTOR must say which/);
  });

  it('a sandbox key is refused for live, naming the variable, never the key', () => {
    const sandbox = `sk_sbox_${'a'.repeat(27)}`;
    const message = failure(env({ OBOLUS_CHECKOUT_SECRET_KEY: sandbox }));
    expect(message).toMatch(/^OBOLUS_CHECKOUT_SECRET_KEY is a sandbox key/);
    expect(message).not.toContain(sandbox);
  });

  it('missing or malformed settings are named, never echoed', () => {
    expect(failure(env({ OBOLUS_CHECKOUT_SECRET_KEY: '' }))).toMatch(/^OBOLUS_CHECKOUT_SECRET_KEY is required/);
    expect(failure(env({ OBOLUS_CHECKOUT_SECRET_KEY: 'pk_oops' }))).toMatch(/^OBOLUS_CHECKOUT_SECRET_KEY must be/);
    expect(failure(env({ OBOLUS_CHECKOUT_SECRET_KEY: `sk_${'a'.repeat(600)}` }))).not.toContain('aaaa');
    expect(failure(env({ OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID: 'pc_short' }))).toMatch(
      /^OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID is required/,
    );
    const short = failure(env({ OBOLUS_CHECKOUT_WEBHOOK_SECRET: 'tooshort' }));
    expect(short).toMatch(/^OBOLUS_CHECKOUT_WEBHOOK_SECRET is required/);
    expect(short).not.toContain('tooshort');
  });

  it.each([
    ['http://127.0.0.1:12112', true],
    ['https://abcd1234.api.checkout.com', true],
    ['http://10.0.0.5:12112', false],
    ['http://api.checkout.com', false],
    ['https://api.checkout.com/payments', false],
  ])('OBOLUS_CHECKOUT_API_BASE %s accepted: %s (http:// only on loopback)', (base, ok) => {
    const vars = env({ OBOLUS_CHECKOUT_API_BASE: base });
    if (ok) expect(checkoutOf(loadConfig(vars).liveConnector)?.apiBase.origin).toBe(new URL(base).origin);
    else expect(failure(vars)).toMatch(/^OBOLUS_CHECKOUT_API_BASE /);
  });

  it('`obolus dev checkout-double` serves Checkout.com answers on loopback and prints working variables', async () => {
    const child = spawn(process.execPath, [OBOLUS_BIN, 'dev', 'checkout-double', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    killOnExit(child);
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('OBOLUS_CHECKOUT_WEBHOOK_SECRET=')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const vars = Object.fromEntries([...out.matchAll(/(OBOLUS_\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      expect(vars.OBOLUS_CHECKOUT_API_BASE).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(loadConfig(vars).liveConnector?.name).toBe('checkout');
      const res = await fetch(`${vars.OBOLUS_CHECKOUT_API_BASE}/payments/pay_missing`, {
        headers: { authorization: `Bearer ${vars.OBOLUS_CHECKOUT_SECRET_KEY}` },
      });
      expect(res.status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
