import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExampleMerchant } from '../../../examples/merchant/server.ts';
import { PASSWORD_MIN_LENGTH } from '../src/domain/dashboard/passwords.ts';
import { launchBrowser, startHostServer, type TestBrowser } from './support/browser.ts';
import { killOnExit } from './support/children.ts';
import { OBOLUS_BIN } from './support/cli.ts';
import { block, README, sectionBlocks } from './support/readme.ts';
import { freePort } from './support/server.ts';
import { until } from './support/until.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';
import { fillCard } from './support/widget-pages.ts';

/**
 * The README, followed as a newcomer would: `npm start` on a fresh database, then the
 * "Integrate in five minutes" commands and snippets exactly as written (only the port of
 * this test's server and of the shop replace 4242 and 3000). A command or snippet that
 * stops working fails this test.
 */
const STEPS = sectionBlocks(README, 'Integrate in five minutes');

interface Serve {
  child: ChildProcess;
  output: () => string;
}

/**
 * `obolus serve --dev`, what `npm start` runs, with no database configured in a fresh directory
 * (so on a fresh ./data/obolus.db, as on a first start): resolves once the banner is out.
 */
function startServe(cwd: string, env: Record<string, string>): Promise<Serve> {
  const base = { ...process.env };
  delete base.OBOLUS_WEBHOOKS_ALLOW_LOOPBACK;
  delete base.OBOLUS_DATABASE_URL;
  const child = spawn(process.execPath, [OBOLUS_BIN, 'serve', '--dev'], {
    cwd,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('/metrics')) resolve({ child, output: () => out });
    });
    child.stderr?.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

const sh = async (code: string, env: Record<string, string>) =>
  (await promisify(execFile)('sh', ['-c', code], { env: { ...process.env, ...env } })).stdout;

describe('the README, as written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'obolus-readme-'));
  let serve: Serve;
  let browser: TestBrowser;
  let base: string;
  let keys: { secret: string; client: string };
  const local = (code: string) => code.replaceAll('http://localhost:4242', base);

  beforeAll(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    serve = await startServe(dir, { PORT: String(port) });
    const banner = serve.output();
    keys = {
      secret: /Secret key\s+(sk_\w+)/.exec(banner)?.[1] ?? '',
      client: /Client key\s+(pk_\w+)/.exec(banner)?.[1] ?? '',
    };
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (serve?.child.exitCode === null) {
      serve.child.removeAllListeners('exit');
      serve.child.kill('SIGTERM');
      await new Promise((r) => serve.child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('npm start prints the banner after every start-up log line, with the demo keys', () => {
    const lines = serve.output().split('\n');
    const bannerAt = lines.findIndex((line) => line.startsWith('Obolus is running at '));
    const before = lines.slice(0, bannerAt).filter((line) => line.startsWith('{'));
    expect(before.some((line) => line.includes('"applied migration"'))).toBe(true);
    expect(before.some((line) => line.includes('Server listening'))).toBe(true);
    const banner = lines.slice(
      bannerAt,
      lines.findIndex((line) => line.includes('/metrics')),
    );
    expect(banner.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(keys.secret).toMatch(/^sk_/);
    expect(keys.client).toMatch(/^pk_/);
  });

  it('the service answers at its address with a start page', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    for (const path of ['/dashboard', '/docs', '/healthz']) expect(html).toContain(`href="${base}${path}"`);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  let intent: { id: string; client_secret: string };
  it('step 1: the curl creates the intent the README shows, and errors look as it says', async () => {
    const shown = JSON.parse(block(STEPS, 'json', '"client_secret"'));
    intent = JSON.parse(
      await sh(local(block(STEPS, 'sh', '/api/v1/payment-intents')), { OBOLUS_SECRET_KEY: keys.secret }),
    );
    for (const field of ['object', 'amount', 'currency', 'status', 'mode'])
      expect(intent).toHaveProperty(field, shown[field]);
    expect(intent.id).toMatch(/^[0-9a-f]{24}$/);
    expect(intent.client_secret.startsWith(`pi_${intent.id}_secret_`)).toBe(true);

    const error = JSON.parse(block(STEPS, 'json', '"invalid_request"')).error;
    const refused = await fetch(`${base}/api/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 0, currency: 'USD' }),
    });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error).toMatchObject({
      type: error.type,
      code: error.code,
      message: error.message,
      param: error.param,
    });
    expect(body.error.request_id).toMatch(/^req_/);

    const plain = JSON.parse(/`(\{"error":"[^`]*\})`/.exec(README)?.[1] ?? 'null');
    const missing = await fetch(`${base}/api/v1/transactions/${'0'.repeat(24)}`, {
      headers: { authorization: `Bearer ${keys.secret}` },
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual(plain);
  });

  it('step 2: the widget snippet, pasted into a page, takes 4242 4242 4242 4242 and calls onResult', async () => {
    const snippet = local(block(STEPS, 'html', 'Obolus('))
      .replace(`'pk_…'`, JSON.stringify(keys.client))
      .replace(`'pi_…_secret_…'`, JSON.stringify(intent.client_secret));
    expect(snippet).toContain(keys.client);
    expect(snippet).toContain(intent.client_secret);
    const host = await startHostServer();
    try {
      host.page(
        '/checkout',
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head><body>${snippet}</body></html>`,
      );
      host.page('/thanks', '<!doctype html><title>Thanks</title><h1>Thanks</h1>');
      const page = await (await browser.context()).newPage();
      await page.goto(`${host.origin}/checkout`);
      const widget = page.frameLocator('iframe[title="Secure card payment"]');
      await fillCard(widget, '4242424242424242');
      await widget.getByRole('button', { name: 'Pay $20.00' }).click();
      await page.waitForURL(`${host.origin}/thanks?order=1042`, { timeout: 20_000 });
    } finally {
      await host.close();
    }
    const paid = await fetch(`${base}/api/v1/payment-intents/${intent.id}`, {
      headers: { authorization: `Bearer ${keys.secret}` },
    });
    expect(await paid.json()).toMatchObject({ status: 'succeeded' });
  }, 60_000);

  let receiver: Receiver | undefined;
  afterAll(() => receiver?.close());
  it('step 3: the endpoint curl registers the example shop, whose /webhooks marks the order paid; the snippet verifies', async () => {
    const command = local(block(STEPS, 'sh', '/api/v1/webhook-endpoints'));
    const shopUrl = `http://localhost:${await freePort()}`;
    const register = async (url: string) =>
      JSON.parse(await sh(command.replace('http://localhost:3000/webhooks', url), { OBOLUS_SECRET_KEY: keys.secret }));
    const endpoint = await register(`${shopUrl}/webhooks`);
    expect(endpoint).toMatchObject({
      mode: 'sandbox',
      url: `${shopUrl}/webhooks`,
      secret: expect.stringMatching(/^whsec_/),
    });
    receiver = await startReceiver();
    const recorder = await register(receiver.url.replace('127.0.0.1', 'localhost'));

    const shop = await startExampleMerchant({
      obolusUrl: base,
      secretKey: keys.secret,
      clientKey: keys.client,
      webhookSecret: endpoint.secret,
      port: Number(new URL(shopUrl).port),
    });
    try {
      const page = await (await browser.context()).newPage();
      await page.goto(shop.url);
      const widget = page.frameLocator('iframe[title="Secure card payment"]');
      await fillCard(widget, '4242424242424242');
      await widget.getByRole('button', { name: 'Pay $20.00' }).click();
      await expect
        .poll(() => page.locator('#result').textContent(), { timeout: 20_000 })
        .toBe('Paid, confirmed by the shop server.');
      const [order] = [...shop.orders.values()];
      await until(() => order?.status === 'paid');
      // A forged webhook changes nothing; the theme switch serves the dark page and widget.
      const forged = await fetch(`${shop.url}/webhooks`, {
        method: 'POST',
        headers: {
          'webhook-id': 'evt_x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: JSON.stringify({ type: 'payment_intent.succeeded', data: { object: { id: 'x' } } }),
      });
      expect(forged.status).toBe(400);
      const dark = await (await fetch(`${shop.url}/?theme=dark`)).text();
      expect(dark).toContain('"theme":"dark"');
      expect(dark).toContain('Switch to the light theme');
    } finally {
      await shop.close();
    }

    await until(() => receiver!.received.some((w) => w.json?.type === 'payment_intent.succeeded'));
    const webhook = receiver.received.find((w) => w.json.type === 'payment_intent.succeeded')!;
    const snippet = block(STEPS, 'js', 'verify(');
    const [importLine, ...rest] = snippet.trim().split('\n');
    expect(importLine).toBe("import { Webhook } from 'standardwebhooks';");
    const verify = new Function('Webhook', 'process', 'rawBody', 'headers', `${rest.join('\n')}\nreturn event;`);
    const env = { env: { OBOLUS_WEBHOOK_SECRET: recorder.secret } };
    expect(verify(Webhook, env, webhook.body, webhook.headers)).toMatchObject({
      type: 'payment_intent.succeeded',
      mode: 'sandbox',
    });
    expect(() => verify(Webhook, env, webhook.body.replace('succeeded', 'failed'), webhook.headers)).toThrow();
  }, 90_000);

  it("names the demo account's sign-in email and the password rule where it says how to set a password", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [OBOLUS_BIN, 'accounts', 'list', '--json'], {
      cwd: dir,
      env: { ...process.env, OBOLUS_DATABASE_URL: '' },
    });
    const [demo] = JSON.parse(stdout) as { email: string }[];
    const paragraph = README.slice(
      README.indexOf('accounts set-password <account-id>'),
      README.indexOf('The service listens on'),
    );
    expect(paragraph).toContain(`the demo account's email is \`${demo?.email}\``);
    expect(paragraph).toContain(`(${PASSWORD_MIN_LENGTH} characters or more)`);
  });

  // Last: allowing an origin locks the widget to it (step 3's shop runs on another port).
  it('the hosted-page step: the product curl gives a checkout page; a success_url works once its origin is allowed', async () => {
    const product = JSON.parse(
      await sh(local(block(STEPS, 'sh', '/api/v1/products')), { OBOLUS_SECRET_KEY: keys.secret }),
    );
    expect(product.url).toMatch(new RegExp(`^${base}/prod_`));
    expect((await fetch(product.url)).status).toBe(200);
    const withReturn = () =>
      fetch(`${base}/api/v1/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'T-shirt',
          amount: 2500,
          currency: 'USD',
          mode: 'sandbox',
          success_url: /"success_url": "([^"]+)"/.exec(README)?.[1],
        }),
      });
    const refused = await withReturn();
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({ code: 'parameter_invalid', param: 'success_url' });
    const accountId = /demo account (acct_\w+)/.exec(serve.output())?.[1] ?? '';
    const command = /`(npx obolus origins set <account-id> [^`]+)`/.exec(README)?.[1] ?? '';
    const args = command.replace('<account-id>', accountId).split(' ').slice(2);
    await promisify(execFile)(process.execPath, [OBOLUS_BIN, ...args], {
      cwd: dir,
      env: { ...process.env, OBOLUS_DATABASE_URL: '' },
    });
    // A running server sees the account's new origins within a second (its account cache,
    // ACCOUNT_CACHE_TTL_MS); the CLI now starts faster than that.
    await expect.poll(async () => (await withReturn()).status).toBe(200);
  });
});
