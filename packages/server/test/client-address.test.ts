import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { clientNetwork } from '../src/domain/client-network.ts';
import { MAX_FAILURES_PER_IP_PER_MINUTE } from '../src/domain/payments/failure-limiter.ts';
import { ENGINES } from './support/engines.ts';
import { startSecondProcess } from './support/second-process.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

const DECLINED = '4000000000000002';

describe('client networks', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2::a', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (address, network) => {
    expect(clientNetwork(address)).toBe(network);
  });
});

describe('OBOLUS_TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['1', 1],
    ['10.0.0.5', ['10.0.0.5']],
    ['10.0.0.0/8, 2001:db8::/32,loopback', ['10.0.0.0/8', '2001:db8::/32', 'loopback']],
  ])('%o is %o', (text, trust) => {
    expect(loadConfig({ OBOLUS_TRUST_PROXY: text }).trustProxy).toEqual(trust);
  });

  it.each([
    ['true', 'every client choose its own address'],
    ['0', 'a hop count is 1 to 10'],
    ['11', 'a hop count is 1 to 10'],
    ['10.0.0.0/33', "'10.0.0.0/33' is not an IP address"],
    ['proxy.internal', "'proxy.internal' is not an IP address"],
  ])('%s is refused: %s', (text, message) => {
    expect(() => loadConfig({ OBOLUS_TRUST_PROXY: text })).toThrow(message);
  });
});

describe.each(ENGINES)('card-testing limit per client (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 7, 12, 0, 5));
  // The test talks to the server from 127.0.0.1: that is the trusted proxy here.
  const { t, shop } = useTestServer(engine, {
    clock,
    config: { trustProxy: ['127.0.0.1'], webhooksPollMs: 0 },
    withAccount: true,
  });

  const failFrom = async (forwardedFor: string) => {
    const intent = await createIntent(t, shop.secretKey);
    return confirm(t, shop.clientKey, intent.client_secret, card(DECLINED), {
      headers: { 'x-forwarded-for': forwardedFor },
    });
  };
  const nextWindow = () => clock.advance(MINUTE);

  it('takes the address the trusted proxy saw: a client rotating the left of X-Forwarded-For is still one client', async () => {
    nextWindow();
    for (let i = 0; i < MAX_FAILURES_PER_IP_PER_MINUTE; i++) {
      const res = await failFrom(`10.9.${i}.1, 198.51.100.${i}, 203.0.113.7`);
      expect(res.json.status).toBe('failed');
    }
    const blocked = await failFrom('192.0.2.200, 203.0.113.7');
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.code).toBe('rate_limited');
    // The stored address is the one the proxy saw, not one the client wrote.
    const ips = await t.server.services.database.db
      .selectFrom('transactions')
      .select('client_ip')
      .where('account_id', '=', shop.id)
      .distinct()
      .execute();
    expect(ips.map((r) => r.client_ip)).toEqual(['203.0.113.7']);
    // Another client behind the same proxy is not affected.
    expect((await failFrom('203.0.113.8')).json.status).toBe('failed');
  });

  it('counts IPv6 clients per /64', async () => {
    nextWindow();
    for (let i = 0; i < MAX_FAILURES_PER_IP_PER_MINUTE; i++) {
      expect((await failFrom(`2001:db8:aa:bb::${(i + 1).toString(16)}`)).json.status).toBe('failed');
    }
    expect((await failFrom('2001:db8:aa:bb:ffff:1:2:3')).status).toBe(429);
    expect((await failFrom('2001:db8:aa:bc::1')).json.status).toBe('failed');
  });

  it('one window for every process: failures through two processes add up', async () => {
    // The second process runs on the real clock: count in the same minute here, far from its end.
    if (Date.now() % MINUTE > 40_000)
      await new Promise((resolve) => setTimeout(resolve, MINUTE - (Date.now() % MINUTE)));
    clock.set(Date.now());
    const second = await startSecondProcess(t);
    try {
      const half = MAX_FAILURES_PER_IP_PER_MINUTE / 2;
      const other = { ...t, url: second.url, call: callOn(second.url) } as TestServer;
      for (let i = 0; i < half; i++) {
        // Without X-Forwarded-For the client is the peer itself, 127.0.0.1, in both processes.
        const mine = await createIntent(t, shop.secretKey);
        expect((await confirm(t, shop.clientKey, mine.client_secret, card(DECLINED))).json.status).toBe('failed');
        const intent = await createIntent(t, shop.secretKey);
        const res = await confirm(other, shop.clientKey, intent.client_secret, card(DECLINED));
        expect(res.json.status).toBe('failed');
      }
      const intent = await createIntent(t, shop.secretKey);
      const blocked = await confirm(other, shop.clientKey, intent.client_secret, card(DECLINED));
      expect(blocked.status).toBe(429);
    } finally {
      await second.stop();
    }
    // Up to 20 s waiting for a fresh minute, then a process start and 21 payments on a loaded machine.
  }, 90_000);
});

describe('a proxy in front with no trust configured', () => {
  it('is said once in the log, naming the proxy and the variable', async () => {
    const t = await startTestServer('sqlite', { config: { webhooksPollMs: 0 } });
    try {
      for (let i = 0; i < 3; i++) {
        await t.call('GET', '/healthz', { headers: { 'x-forwarded-for': `198.51.100.${i}` } });
      }
      const warnings = t
        .logs()
        .split('\n')
        .filter((line) => line.includes('OBOLUS_TRUST_PROXY is not set'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] as string)).toMatchObject({ level: 40, proxy: '127.0.0.1' });
    } finally {
      await t.close();
    }
  });

  it('is not said for direct requests', async () => {
    const t = await startTestServer('sqlite', { config: { webhooksPollMs: 0 } });
    try {
      await t.call('GET', '/healthz');
      expect(t.logs()).not.toContain('OBOLUS_TRUST_PROXY');
    } finally {
      await t.close();
    }
  });
});

function callOn(url: string): TestServer['call'] {
  return async (method, path, { body, headers = {} } = {}) => {
    const response = await fetch(url + path, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
  };
}
