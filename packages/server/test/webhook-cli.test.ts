import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentIntent } from '../../node/src/index.ts';
import { SandboxProcessor } from '../src/connectors/sandbox/sandbox.ts';
import { OBOLUS_BIN, runCli } from './support/cli.ts';
import { type TestAccount, WEBHOOKS_BY_HAND } from './support/server.ts';
import { until } from './support/until.ts';
import { useTestServer } from './support/use-test-server.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';

interface Running {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** A long-running `obolus` process of this test; stop() ends it by its own pid. */
function startCli(args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [OBOLUS_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    output: () => output,
    async waitFor(pattern, ms = 15_000) {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        const match = output.match(pattern);
        if (match) return match;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`timed out waiting for ${pattern}; output so far:\n${output}`);
    },
    async stop(signal) {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

describe('obolus worker and obolus listen', () => {
  let receiver: Receiver;
  const running: Running[] = [];
  let configDir: string;
  // A live connector that refuses every payment, so that live intents (and their events) exist.
  const { t } = useTestServer('sqlite', {
    config: WEBHOOKS_BY_HAND,
    liveProcessor: new SandboxProcessor(),
  });
  // Replaced by the test that rolls its key.
  let shop: TestAccount;
  beforeAll(async () => {
    shop = await t.newAccount();
    configDir = await mkdtemp(join(tmpdir(), 'obolus-config-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop('SIGKILL')));
    await receiver?.close();
  });
  afterAll(() => rm(configDir, { recursive: true, force: true }));

  const createIntent = async (amount: number, mode = 'sandbox') =>
    (
      await t.call<PaymentIntent>('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: { amount, currency: 'USD', mode },
      })
    ).json;

  it('`obolus worker` delivers webhooks from the shared database, and stops cleanly', async () => {
    receiver = await startReceiver();
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: receiver.url, enabled_events: ['payment_intent.created'], mode: 'sandbox' },
    });
    const intent = await createIntent(4100);
    const worker = startCli(['worker'], {
      OBOLUS_DATABASE_URL: t.database.url,
      OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true',
      OBOLUS_WEBHOOKS_POLL_MS: '100',
      OBOLUS_LOG_LEVEL: 'info',
    });
    running.push(worker);
    await worker.waitFor(/webhook worker started/);
    await until(() => receiver.received.length === 1);
    const [webhook] = receiver.received;
    expect(webhook!.json.data.object.id).toBe(intent.id);
    expect(() => new Webhook(endpoint.json.secret).verify(webhook!.body, webhook!.headers)).not.toThrow();
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.output()).toMatch(/webhook worker stopping/);
    expect(worker.output()).not.toContain('whsec_');
  });

  it('`obolus listen` forwards new events, signed with the secret it prints', async () => {
    receiver = await startReceiver();
    const old = await createIntent(1);
    const listen = startCli(
      [
        'listen',
        '--forward-to',
        receiver.url,
        '--api-url',
        t.url,
        '--events',
        'payment_intent.created,payment_intent.succeeded',
        '--interval',
        '100',
      ],
      { OBOLUS_SECRET_KEY: shop.secretKey, OBOLUS_CONFIG_DIR: configDir },
    );
    running.push(listen);
    const [, secret] = await listen.waitFor(/Ready! Your webhook signing secret is (whsec_\S+)/);
    const intent = await createIntent(4200);
    await until(() => receiver.received.length === 1);
    const [webhook] = receiver.received;
    expect(webhook!.json).toMatchObject({ type: 'payment_intent.created', data: { object: { id: intent.id } } });
    expect(() => new Webhook(secret!).verify(webhook!.body, webhook!.headers)).not.toThrow();
    const event = await t.call('GET', `/api/v1/events/${webhook!.json.id}`, { key: shop.secretKey });
    expect(webhook!.body).toBe(event.text);
    await listen.waitFor(
      new RegExp(`\\[sandbox\\]\\s+payment_intent\\.created\\s+${webhook!.json.id}\\s+\\[204\\] \\d+ ms`),
    );
    expect(await listen.stop('SIGINT')).toBe(0);
    expect(listen.output()).toMatch(/Stopped: forwarded 1 event\(s\), 0 not answered with 2xx/);
    expect(receiver.received.some((w) => w.json.data.object.id === old.id)).toBe(false);
  });

  it('`obolus listen` keeps one secret per machine and account, and never stores the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'obolus-listen-'));
    const print = async (key: string) => {
      const res = await runCli(['listen', '--print-secret', '--api-url', t.url], {
        OBOLUS_SECRET_KEY: key,
        OBOLUS_CONFIG_DIR: dir,
      });
      expect(res.code).toBe(0);
      return res.stdout.trim();
    };
    const first = await print(shop.secretKey);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(await print(shop.secretKey)).toBe(first);
    // The receiver keeps working when the account's secret key is rolled: the secret is the account's.
    const rolled = await runCli(['keys', 'roll', shop.id, '--grace', '0', '--json'], {
      OBOLUS_DATABASE_URL: t.database.url,
    });
    expect(rolled.code).toBe(0);
    const { secret_key: newKey } = JSON.parse(rolled.stdout) as { secret_key: string };
    expect(await print(newKey)).toBe(first);
    shop = { ...shop, secretKey: newKey };
    const other = await t.newAccount();
    expect(await print(other.secretKey)).not.toBe(first);
    const file = join(dir, 'listen-secrets.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = await readFile(file, 'utf8');
    expect(stored).toContain(first);
    expect(stored).not.toContain(shop.secretKey);
    expect(stored).not.toContain(shop.id);
    await rm(dir, { recursive: true });
  });

  it.each([
    [[], 'sandbox'],
    [['--live'], 'live'],
  ])('`obolus listen %j` forwards %s events only, and shows their mode', async (flags, mode) => {
    receiver = await startReceiver();
    const listen = startCli(
      [
        'listen',
        ...flags,
        ...[
          '--forward-to',
          receiver.url,
          '--api-url',
          t.url,
          '--events',
          'payment_intent.created',
          '--interval',
          '100',
        ],
      ],
      { OBOLUS_SECRET_KEY: shop.secretKey, OBOLUS_CONFIG_DIR: configDir },
    );
    running.push(listen);
    await listen.waitFor(new RegExp(`Forwarding payment_intent\\.created ${mode} events`));
    // The other mode's intent first: by the time the wanted one's event is forwarded, the session
    // has read the other one too.
    await createIntent(4300, mode === 'live' ? 'sandbox' : 'live');
    const wanted = await createIntent(4400, mode);
    await until(() => receiver.received.length === 1);
    await listen.waitFor(new RegExp(`\\[${mode}\\]\\s+payment_intent\\.created\\s+\\S+\\s+\\[204\\]`));
    expect(await listen.stop('SIGINT')).toBe(0);
    // Both intents' events were in the feed the session read; only the wanted mode's went out.
    expect(receiver.received.map((w) => w.json.data.object.id)).toEqual([wanted.id]);
    expect(receiver.received[0]!.json.mode).toBe(mode);
    expect(listen.output()).toMatch(/Stopped: forwarded 1 event\(s\)/);
  });

  it.each([
    [['listen'], 2, /--forward-to/],
    [['listen', '--forward-to', 'localhost:3000'], 2, /http:\/\//],
    [['listen', '--forward-to', 'http://localhost:3000', '--events', 'payment.done'], 2, /unknown event type/],
    [['listen', '--forward-to', 'http://localhost:3000', '--interval', '99'], 2, /100 to 60000/],
    [['listen', '--forward-to', 'http://localhost:3000'], 2, /--api-key/],
  ])('%j is refused with a clear message', async (args, code, message) => {
    const res = await runCli(args, { OBOLUS_SECRET_KEY: '' });
    expect(res.code).toBe(code);
    expect(res.stderr).toMatch(message);
  });

  it.each([[['worker', '--help']], [['listen', '--help']]])('%j explains itself', async (args) => {
    const res = await runCli(args, {});
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Usage: obolus (worker|listen)/);
  });

  it('listen with a wrong key stops with the API error', async () => {
    const res = await runCli(['listen', '--forward-to', 'http://localhost:3000', '--api-url', t.url], {
      OBOLUS_SECRET_KEY: 'sk_wrong',
      OBOLUS_CONFIG_DIR: configDir,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Invalid API key/);
  });
});
