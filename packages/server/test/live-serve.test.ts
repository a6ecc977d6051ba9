import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AcquirerDouble, DOUBLE_TLS_DIR, startAcquirerDouble } from './support/acquirer-double.ts';
import { OBOLUS_BIN, runCli } from './support/cli.ts';
import { ENGINES } from './support/engines.ts';
import { freePort, startTestServer, type TestAccount, type TestServer } from './support/server.ts';
import { card, createIntent, encryptCard } from './support/widget-client.ts';

/** The database URL another process needs to reach the data of `t`. */
function databaseUrlOf(t: TestServer): string {
  if (!t.database.schema) return t.database.url;
  const url = new URL(t.database.url);
  url.searchParams.set('options', `-c search_path=${t.database.schema}`);
  return url.toString();
}

/** `obolus serve` as an operator runs it, configured only by environment variables. */
async function serve(
  env: Record<string, string>,
): Promise<{ url: string; output: () => string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [OBOLUS_BIN, 'serve'], {
    env: { ...process.env, PORT: String(port), OBOLUS_BASE_URL: `http://127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(async () => {
      if ((await fetch(`${url}/readyz`).catch(() => null))?.ok) {
        clearInterval(timer);
        resolve();
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`obolus serve exited with ${code}: ${output}`));
    });
  });
  return {
    url,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

describe.each(ENGINES)('`obolus serve` with OBOLUS_LIVE_CONNECTOR_* over HTTPS (%s)', (engine) => {
  let t: TestServer;
  let shop: TestAccount;
  let double: AcquirerDouble;
  let served: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    t = await startTestServer(engine);
    shop = await t.newAccount();
    double = await startAcquirerDouble({ tls: true });
    served = await serve({
      OBOLUS_DATABASE_URL: databaseUrlOf(t),
      OBOLUS_LIVE_CONNECTOR_URL: double.url,
      OBOLUS_LIVE_CONNECTOR_KEY: double.key,
      OBOLUS_LOG_LEVEL: 'warn',
      // The operator's way to trust a private CA; here, the test certificate.
      NODE_EXTRA_CA_CERTS: `${DOUBLE_TLS_DIR}/cert.pem`,
    });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await double?.stop();
    await t?.close();
  });

  const confirmAt = async (base: string, body: unknown) => {
    const res = await fetch(`${base}/embed/v1/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  it('pays a live intent through the configured acquirer', async () => {
    const intent = await createIntent(t, shop.secretKey, { mode: 'live' });
    const jwe = await encryptCard(t, intent.id, card('4111111111111111'));
    const res = await confirmAt(served.url, {
      pk: shop.clientKey,
      client_secret: intent.client_secret,
      mode: 'live',
      card: jwe,
    });
    expect(res.json).toMatchObject({ status: 'succeeded', success: true });
    const sent = (await double.requests()).filter((r) => r.body?.attempt_id === res.json.transaction_id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${double.key}`);
    expect(served.output()).not.toContain(double.key);
  });

  it('20 concurrent confirms of one live intent: one authorization reaches the acquirer', async () => {
    const intent = await createIntent(t, shop.secretKey, { mode: 'live' });
    const jwe = await encryptCard(t, intent.id, card('4111111111111111'));
    const body = { pk: shop.clientKey, client_secret: intent.client_secret, mode: 'live', card: jwe };
    const before = (await double.requests()).length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => confirmAt(served.url, body)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect((await double.requests()).length - before).toBe(1);
  });
});

describe('`obolus serve` refuses a live connector it cannot use', () => {
  it.each([
    [{ OBOLUS_LIVE_CONNECTOR_URL: 'http://127.0.0.1:9/v1' }, 'must use https://'],
    [{ OBOLUS_LIVE_CONNECTOR_URL: 'https://acquirer.test/v1' }, 'OBOLUS_LIVE_CONNECTOR_KEY is required'],
    [{ OBOLUS_LIVE_CONNECTOR_KEY: 'sk_live_secret_value' }, 'OBOLUS_LIVE_CONNECTOR_URL is not'],
  ])('%o: one line naming the variable, never the key', async (env, message) => {
    const result = await runCli(['serve'], { OBOLUS_DATABASE_URL: ':memory:', ...env });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr + result.stdout).not.toContain('sk_live_secret_value');
  });
});
