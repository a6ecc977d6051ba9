import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { HttpWebhookSender, isPublicReceiver, type Resolver } from '../src/workers/webhooks/transport.ts';
import { ENGINES } from './support/engines.ts';
import { WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { type Receiver, startReceiver, verifyAsSent } from './support/webhook-receiver.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/webhook-tls/${name}`, import.meta.url), 'utf8');
const TLS = { key: fixture('key.pem'), cert: fixture('cert.pem') };

/**
 * The outside world here is DNS: a stub resolver answers what a hostile DNS could. Every
 * test sends to loopback only; a refusal is proven by a loopback receiver that saw nothing.
 */
function stubResolver(answers: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolve, { asked });
}

const post = (sender: HttpWebhookSender, url: string) =>
  sender.send(url, { 'content-type': 'application/json', 'webhook-id': 'evt_test' }, '{"ok":true}');

describe('webhook transport', () => {
  const receivers: Receiver[] = [];
  const receiver = async (tls?: typeof TLS) => {
    const r = await startReceiver(tls);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('refuses a name that resolves to a private address, before any connection', async () => {
    const resolve = stubResolver({ 'hooks.shop.example': ['10.0.0.5'] });
    const result = await post(new HttpWebhookSender({ allowLoopback: false, resolve }), 'http://hooks.shop.example/h');
    expect(resolve.asked).toEqual(['hooks.shop.example']);
    expect(result).toMatchObject({ statusCode: null, responseBody: null });
    expect(result.error).toBe(
      'refused: hooks.shop.example resolves to 10.0.0.5 (private); webhooks go to public addresses only',
    );
  });

  it('checks the address actually connected: loopback from DNS is refused and nothing connects', async () => {
    const r = await receiver();
    const resolve = stubResolver({ 'rebind.example': ['127.0.0.1'] });
    const refused = await post(
      new HttpWebhookSender({ allowLoopback: false, resolve }),
      `http://rebind.example:${r.port}/`,
    );
    expect(refused.error).toMatch(/^refused: rebind.example resolves to 127.0.0.1 \(loopback\)/);
    expect(r.connections()).toBe(0);
    // The same answer with loopback allowed reaches the receiver: the stub decides where we connect.
    const allowed = await post(
      new HttpWebhookSender({ allowLoopback: true, resolve }),
      `http://rebind.example:${r.port}/`,
    );
    expect(allowed).toMatchObject({ statusCode: 204, error: null });
    expect(r.connections()).toBe(1);
  });

  it('one forbidden address refuses the whole name', async () => {
    const r = await receiver();
    const resolve = stubResolver({ 'mixed.example': ['127.0.0.1', '169.254.169.254'] });
    const result = await post(
      new HttpWebhookSender({ allowLoopback: true, resolve }),
      `http://mixed.example:${r.port}/`,
    );
    expect(result.error).toMatch(/169\.254\.169\.254 \(link-local \(cloud metadata\)\)/);
    expect(r.connections()).toBe(0);
  });

  it('refuses loopback literals and localhost unless allowed, without connecting', async () => {
    const r = await receiver();
    const sender = new HttpWebhookSender({ allowLoopback: false, resolve: stubResolver({}) });
    for (const url of [
      `http://127.0.0.1:${r.port}/`,
      `http://[::ffff:127.0.0.1]:${r.port}/`,
      `http://localhost:${r.port}/`,
    ]) {
      expect((await post(sender, url)).error).toMatch(/^refused: .* is loopback/);
    }
    expect(r.connections()).toBe(0);
  });

  it('does not follow redirects', async () => {
    const target = await receiver();
    const r = await receiver();
    r.reply = () => ({ status: 307, headers: { location: target.url } });
    // Receivers here are on loopback: say this one is public, to see what a public one's answer gives.
    const asPublic = { allowLoopback: true, keepsAnswerOf: () => true };
    const result = await post(new HttpWebhookSender(asPublic), r.url);
    expect(result).toMatchObject({ statusCode: 307, error: `redirects are not followed (Location: ${target.url})` });
    expect(target.connections()).toBe(0);
    // A loopback receiver's Location is not kept (issue 25 item 4).
    const local = await post(new HttpWebhookSender({ allowLoopback: true }), r.url);
    expect(local).toMatchObject({ statusCode: 307, error: 'redirects are not followed', responseBody: null });
  });

  it('keeps nothing of what a loopback or private receiver answers, only its status (issue 25 item 4)', async () => {
    const r = await receiver();
    r.reply = () => ({ status: 200, body: 'redis_version:7.2.4 (a local service)' });
    const result = await post(new HttpWebhookSender({ allowLoopback: true }), r.url);
    expect(result).toMatchObject({ statusCode: 200, responseBody: null, error: null });
    for (const address of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '10.1.2.3',
      '192.168.0.9',
      'fd00::1',
      '169.254.169.254',
    ]) {
      expect(isPublicReceiver(address), address).toBe(false);
    }
    for (const address of ['8.8.8.8', '::ffff:8.8.8.8', '2606:4700:4700::1111']) {
      expect(isPublicReceiver(address), address).toBe(true);
    }
  });

  it('gives up on a receiver slower than the timeout, and keeps only 1 KB of a long answer', async () => {
    const r = await receiver();
    // The receiver answers only once the send has returned: the sender gave up on its own
    // deadline, whatever the machine's load (no bound on the measured latency, 0272).
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    r.reply = () => ({ status: 200, after: held });
    const slow = await post(new HttpWebhookSender({ allowLoopback: true, timeoutMs: 100 }), r.url);
    release();
    expect(r.received).toHaveLength(1);
    expect(slow).toMatchObject({ statusCode: null, error: 'timed out after 0.1 s' });
    r.reply = () => ({ status: 200, body: 'é'.repeat(5000) });
    const long = await post(new HttpWebhookSender({ allowLoopback: true, keepsAnswerOf: () => true }), r.url);
    expect(long.statusCode).toBe(200);
    expect(Buffer.byteLength(long.responseBody!)).toBeLessThanOrEqual(1024);
    expect(long.responseBody!.startsWith('éé')).toBe(true);
  });

  it('speaks TLS, checks the certificate against the name, and refuses an untrusted one', async () => {
    const r = await receiver(TLS);
    const resolve = stubResolver({ 'hooks.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
    const trusted = new HttpWebhookSender({ allowLoopback: true, resolve, ca: TLS.cert });
    expect(await post(trusted, `https://hooks.test:${r.port}/h`)).toMatchObject({ statusCode: 204, error: null });
    expect(await post(trusted, `https://127.0.0.1:${r.port}/h`)).toMatchObject({ statusCode: 204 });
    expect((await post(trusted, `https://other.test:${r.port}/h`)).error).toMatch(/altnames/);
    const untrusted = new HttpWebhookSender({ allowLoopback: true, resolve });
    expect((await post(untrusted, `https://hooks.test:${r.port}/h`)).error).toMatch(/self-signed certificate/);
    expect(r.received).toHaveLength(2);
  });
});

describe.each(ENGINES)('webhook address refusals through the dispatcher (%s)', (engine) => {
  // Live intents (their events go to live endpoints) need a live connector.
  const { t } = useTestServer(engine, {
    config: WEBHOOKS_BY_HAND,
    withLiveConnector: true,
  });

  it('logs the refused attempt and keeps retrying the delivery (DNS may change)', async () => {
    const shop = await t.newAccount();
    const created = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: 'http://hooks.shop.example/obolus', enabled_events: ['*'], mode: 'sandbox' },
    });
    expect(created.status).toBe(200);
    await t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 100, currency: 'USD', mode: 'sandbox' },
    });
    const resolve = stubResolver({ 'hooks.shop.example': ['192.168.1.20'] });
    const report = await new WebhookDispatcher(t.server.services, { resolve }).runOnce();
    expect(report.attempts).toHaveLength(1);
    const log = await t.call('GET', `/api/v1/webhook-endpoints/${created.json.id}/attempts`, { key: shop.secretKey });
    expect(log.json.data[0]).toMatchObject({ succeeded: false, status_code: null, response_body: null });
    expect(log.json.data[0].error).toMatch(/resolves to 192\.168\.1\.20 \(private\)/);
    expect(log.json.data[0].next_attempt_at).not.toBe(null);
  });

  it('delivers a live event over https to a live endpoint', async () => {
    const r = await startReceiver(TLS);
    try {
      const shop = await t.newAccount();
      const http = await t.call('POST', '/api/v1/webhook-endpoints', {
        key: shop.secretKey,
        body: { url: `http://127.0.0.1:${r.port}/h`, enabled_events: ['*'] },
      });
      expect(http.status).toBe(400);
      expect(http.json.error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
      const created = await t.call('POST', '/api/v1/webhook-endpoints', {
        key: shop.secretKey,
        body: { url: `https://127.0.0.1:${r.port}/h`, enabled_events: ['payment_intent.created'] },
      });
      expect(created.json.mode).toBe('live');
      await t.call('POST', '/api/v1/payment-intents', { key: shop.secretKey, body: { amount: 100, currency: 'USD' } });
      await new WebhookDispatcher(t.server.services, { ca: TLS.cert }).runOnce();
      expect(r.received).toHaveLength(1);
      expect(r.received[0]!.json).toMatchObject({ type: 'payment_intent.created', mode: 'live' });
      expect(() => verifyAsSent(created.json.secret, r.received[0]!)).not.toThrow();
    } finally {
      await r.close();
    }
  });
});
