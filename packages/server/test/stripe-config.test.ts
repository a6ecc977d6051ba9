import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insecurePublicAddress, loadConfig } from '../src/config.ts';
import type { LiveConnectorConfig } from '../src/connectors/live-config.ts';
import { killOnExit } from './support/children.ts';
import { OBOLUS_BIN, runCli } from './support/cli.ts';

const LIVE_KEY = 'sk_live_51AbCdEfGhIjKlMnOpQrStUv';
const TEST_KEY = 'sk_test_51AbCdEfGhIjKlMnOpQrStUv';
const WEBHOOK = 'whsec_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const env = (over: Record<string, string> = {}) => ({
  OBOLUS_STRIPE_SECRET_KEY: LIVE_KEY,
  OBOLUS_STRIPE_WEBHOOK_SECRET: WEBHOOK,
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

describe('OBOLUS_LIVE_CONNECTOR and OBOLUS_STRIPE_*', () => {
  it('nothing set: no live connector (live payments refused)', () => {
    expect(loadConfig({}).liveConnector).toBeNull();
    expect(loadConfig({ OBOLUS_LIVE_CONNECTOR: '' }).liveConnector).toBeNull();
  });

  it('Stripe chosen by name or by its key; the API at https://api.stripe.com by default', () => {
    for (const vars of [env(), env({ OBOLUS_LIVE_CONNECTOR: 'stripe' })]) {
      const { liveConnector } = loadConfig(vars);
      expect(liveConnector).toMatchObject({ name: 'stripe', stripe: { secretKey: LIVE_KEY, webhookSecret: WEBHOOK } });
      expect(stripeOf(liveConnector)?.apiBase.href).toBe('https://api.stripe.com/');
    }
  });

  it('an unknown connector name is refused', () => {
    expect(failure({ OBOLUS_LIVE_CONNECTOR: 'adyen' })).toMatch(/^OBOLUS_LIVE_CONNECTOR must be one of: stripe/);
  });

  it('a test key is refused for live with a message naming the variable, never the key', () => {
    const message = failure(env({ OBOLUS_STRIPE_SECRET_KEY: TEST_KEY }));
    expect(message).toMatch(/^OBOLUS_STRIPE_SECRET_KEY is a test-mode key \(sk_test_…\)/);
    expect(message).not.toContain(TEST_KEY);
    expect(failure(env({ OBOLUS_STRIPE_SECRET_KEY: 'rk_test_abc' }))).toMatch(/test-mode key/);
  });

  it('missing or malformed secrets are named, never echoed', () => {
    expect(failure({ OBOLUS_LIVE_CONNECTOR: 'stripe' })).toMatch(/^OBOLUS_STRIPE_SECRET_KEY is required/);
    expect(failure(env({ OBOLUS_STRIPE_SECRET_KEY: 'pk_live_oops' }))).toMatch(/^OBOLUS_STRIPE_SECRET_KEY must be/);
    expect(failure(env({ OBOLUS_STRIPE_WEBHOOK_SECRET: '' }))).toMatch(/^OBOLUS_STRIPE_WEBHOOK_SECRET is required/);
    const bad = failure(env({ OBOLUS_STRIPE_WEBHOOK_SECRET: 'notasecret-but-private' }));
    expect(bad).toMatch(/^OBOLUS_STRIPE_WEBHOOK_SECRET must be/);
    expect(bad).not.toContain('notasecret-but-private');
    expect(failure(env({ OBOLUS_STRIPE_SECRET_KEY: `sk_live_${'a'.repeat(600)}` }))).not.toContain('aaaa');
  });

  it.each([
    ['http://127.0.0.1:12111', true],
    ['http://localhost:12111', true],
    ['http://[::1]:12111', true],
    ['https://stripe-proxy.internal', true],
    ['http://10.0.0.5:12111', false],
    ['http://api.stripe.com', false],
    ['https://api.stripe.com/v1', false],
    ['https://user:pass@api.stripe.com', false],
    ['ftp://api.stripe.com', false],
    ['not a url', false],
  ])('OBOLUS_STRIPE_API_BASE %s accepted: %s (http:// only on loopback)', (base, ok) => {
    const vars = env({ OBOLUS_STRIPE_API_BASE: base });
    if (ok) expect(stripeOf(loadConfig(vars).liveConnector)?.apiBase.origin).toBe(new URL(base).origin);
    else {
      const message = failure(vars);
      expect(message).toMatch(/^OBOLUS_STRIPE_API_BASE /);
      expect(message).not.toContain('pass');
    }
  });

  it('OBOLUS_REVIEW_UNKNOWN_AFTER_MS: 1 minute to 30 days, 1 hour by default', () => {
    expect(loadConfig({}).reviewUnknownAfterMs).toBe(3_600_000);
    expect(loadConfig({ OBOLUS_REVIEW_UNKNOWN_AFTER_MS: '60000' }).reviewUnknownAfterMs).toBe(60_000);
    expect(failure({ OBOLUS_REVIEW_UNKNOWN_AFTER_MS: '59999' })).toMatch(/^OBOLUS_REVIEW_UNKNOWN_AFTER_MS must be/);
    expect(failure({ OBOLUS_REVIEW_UNKNOWN_AFTER_MS: '2592000001' })).toMatch(/^OBOLUS_REVIEW_UNKNOWN_AFTER_MS/);
  });

  it('`obolus serve` with a test key refuses to start, on one line naming the variable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obolus-stripe-'));
    const result = await runCli(['serve'], {
      PORT: '0',
      OBOLUS_DATABASE_URL: join(dir, 'obolus.db'),
      OBOLUS_LIVE_CONNECTOR: 'stripe',
      OBOLUS_STRIPE_SECRET_KEY: TEST_KEY,
      OBOLUS_STRIPE_WEBHOOK_SECRET: WEBHOOK,
    }).finally(() => rmSync(dir, { recursive: true, force: true }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('OBOLUS_STRIPE_SECRET_KEY is a test-mode key');
    expect(result.stderr + result.stdout).not.toContain(TEST_KEY);
  }, 30_000);

  it('with a live connector, public addresses must be https unless on loopback (issue 25 item 15)', () => {
    const live = (over: Record<string, string>) => insecurePublicAddress(loadConfig({ ...env(), ...over }));
    expect(live({ OBOLUS_BASE_URL: 'https://pay.example' })).toBe(null);
    expect(live({ OBOLUS_BASE_URL: 'http://localhost:4242' })).toBe(null);
    expect(live({ OBOLUS_BASE_URL: 'http://127.0.0.1:4242', OBOLUS_APP_URL: 'http://[::1]:4242' })).toBe(null);
    expect(live({ OBOLUS_BASE_URL: 'http://shop.localhost' })).toBe(null);
    expect(live({ OBOLUS_BASE_URL: 'http://pay.example' })).toMatch(/^OBOLUS_BASE_URL is http:\/\/pay\.example/);
    expect(live({ OBOLUS_BASE_URL: 'http://128.0.0.1' })).toMatch(/^OBOLUS_BASE_URL/);
    expect(live({ OBOLUS_BASE_URL: 'https://pay.example', OBOLUS_APP_URL: 'http://10.0.0.5:8080' })).toMatch(
      /^OBOLUS_APP_URL is http:\/\/10\.0\.0\.5:8080/,
    );
    // Without a live connector, plain http stays allowed (sandbox behind a development proxy).
    expect(insecurePublicAddress(loadConfig({ OBOLUS_BASE_URL: 'http://pay.example' }))).toBe(null);
  });

  it('`obolus serve` with a live connector and a plain-http public address refuses to start, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obolus-stripe-'));
    const result = await runCli(['serve'], {
      PORT: '0',
      OBOLUS_DATABASE_URL: join(dir, 'obolus.db'),
      OBOLUS_BASE_URL: 'http://pay.example',
      ...env(),
    }).finally(() => rmSync(dir, { recursive: true, force: true }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('OBOLUS_BASE_URL is http://pay.example');
  }, 30_000);

  it('`obolus dev stripe-double` serves Stripe API answers on loopback and prints the variables to use it', async () => {
    const child = spawn(process.execPath, [OBOLUS_BIN, 'dev', 'stripe-double', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    killOnExit(child);
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('OBOLUS_STRIPE_WEBHOOK_SECRET=')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const vars = Object.fromEntries([...out.matchAll(/(OBOLUS_\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      expect(vars.OBOLUS_STRIPE_API_BASE).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(loadConfig(vars).liveConnector?.name).toBe('stripe');
      const res = await fetch(`${vars.OBOLUS_STRIPE_API_BASE}/v1/payment_intents/pi_missing`, {
        headers: { authorization: `Bearer ${vars.OBOLUS_STRIPE_SECRET_KEY}` },
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'resource_missing' } });
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});

function stripeOf(config: LiveConnectorConfig | null) {
  return config?.name === 'stripe' ? config.stripe : undefined;
}
