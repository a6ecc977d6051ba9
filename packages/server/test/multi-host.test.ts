import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OBOLUS_BIN } from './support/cli.ts';
import { makeTestNetwork, type TestNetwork } from './support/netns.ts';
import { call, encryptionKey, firstAccount, pay, type Storefront, startPaymentLoad } from './support/outage.ts';
import { type PrivateCluster, startPrivateCluster } from './support/private-postgres.ts';
import { killOnExit, type SecondProcess, startServeProcess } from './support/second-process.ts';
import type { TestAccount } from './support/server.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { until } from './support/until.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';

/**
 * Obolus on three machines: each `obolus serve` in a network namespace of its own with its own
 * address, behind a load balancer, on one PostgreSQL (a private cluster listening on the test
 * network's gateway). Namespaces need root: without it the test says why and is skipped.
 */
const HOSTS = 3;
const RATE_LIMIT = 20;
const RELAY = fileURLToPath(new URL('./support/tcp-relay.ts', import.meta.url));
const made = existsSync('/usr/lib/postgresql/15/bin/initdb')
  ? makeTestNetwork(HOSTS)
  : { unavailable: 'no PostgreSQL 15 binaries in /usr/lib/postgresql/15/bin' };
const unavailable = 'unavailable' in made ? made.unavailable : null;
if (unavailable) console.warn(`multi-host: skipped, ${unavailable}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe.skipIf(unavailable !== null)('three Obolus hosts behind a load balancer, one PostgreSQL', () => {
  const net = made as TestNetwork;
  let cluster: PrivateCluster;
  let balancer: TcpProxy;
  let receiver: Receiver;
  const relays: ChildProcess[] = [];
  let hosts: SecondProcess[] = [];
  let store: Storefront;
  let databaseUrl: string;
  beforeAll(async () => {
    cluster = await startPrivateCluster({ listen: `127.0.0.1,${net.gateway}` });
    databaseUrl = cluster.url(net.gateway);
    const shop = await firstAccount(cluster.url());
    receiver = await startReceiver(undefined, net.gateway);
    // Each host's webhooks go to its own loopback, relayed to the receiver at the gateway:
    // webhooks may reach loopback in tests (OBOLUS_WEBHOOKS_ALLOW_LOOPBACK), never a private range.
    for (const host of net.hosts) relays.push(await startRelay(host.exec, receiver.port, net.gateway));
    balancer = await startTcpProxy(net.hosts.map((host) => ({ host: host.address, port: 4242 })));
    const env = {
      OBOLUS_BASE_URL: `http://127.0.0.1:${balancer.port}`,
      OBOLUS_WEBHOOKS_POLL_MS: '200',
      OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true',
      OBOLUS_API_RATE_LIMIT_LIVE: String(RATE_LIMIT),
      OBOLUS_API_RATE_LIMIT_SANDBOX: '100000',
      OBOLUS_API_RATE_LIMIT_ADDRESS: 'off',
      OBOLUS_METRICS_PORT: 'off',
    };
    hosts = await Promise.all(
      net.hosts.map((host) =>
        startServeProcess(databaseUrl, { prefix: host.exec, host: host.address, port: 4242, env }),
      ),
    );
    const endpoint = await call(`http://127.0.0.1:${balancer.port}`, 'POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: `http://127.0.0.1:${receiver.port}/hooks`, enabled_events: ['*'], mode: 'sandbox' },
    });
    expect(endpoint.status).toBe(200);
    const url = `http://127.0.0.1:${balancer.port}`;
    store = { url, shop, jwk: await encryptionKey(url) };
  }, 90_000);
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.kill()));
    for (const relay of relays) relay.kill('SIGKILL');
    await balancer?.close();
    await receiver?.close();
    await cluster?.remove();
    net.remove();
  });

  const charged = (ids: string[]) =>
    cluster.query<{ id: string; n: string }>(
      `select payment_intent_id as id, count(*) as n from transactions
       where status in (20, 40, 41, 50) and payment_intent_id in (${ids.map((id) => `'${id}'`).join(',') || "''"})
       group by 1`,
    );

  it('creates, confirms and refunds through the balancer, every host serving', async () => {
    const load = startPaymentLoad(store);
    await until(() => load.record.paid.size >= 9, 30_000);
    const record = await load.stop();
    expect(record.answers.every((answer) => answer.status === 200)).toBe(true);
    expect(balancer.given().size).toBe(HOSTS);
    const [paid] = [...record.paid];
    const confirmed = await pay(store, record.created.get(paid as string)?.clientSecret as string);
    expect(confirmed.json.error.code).toBe('payment_intent_unexpected_state');
    const tx = (await charged([paid as string]))[0];
    expect(tx?.n).toBe('1');
    const txId = (
      await cluster.query<{ id: string }>(`select id from transactions where payment_intent_id = '${paid}'`)
    )[0]?.id as string;
    const refund = await call(store.url, 'POST', `/api/v1/transactions/${txId}/refunds`, {
      key: store.shop.secretKey,
      body: {},
    });
    expect(refund.status, refund.text).toBe(200);
    const after = await call(store.url, 'GET', `/api/v1/transactions/${txId}`, { key: store.shop.secretKey });
    expect(after.json.status).toBe(40);
  });

  it('each webhook is sent once, whichever host sends it', async () => {
    const events = await cluster.query<{ id: string }>(`select id from events where account_id = '${store.shop.id}'`);
    const ids = () => receiver.received.map((webhook) => webhook.headers['webhook-id']);
    await until(() => events.every((event) => ids().includes(event.id)), 30_000);
    const seen = ids();
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('a key rolled on one host is refused on the others within 1 s', async () => {
    const other = await firstAccount(cluster.url());
    for (const host of hosts) {
      expect((await call(host.url, 'GET', '/api/v1/payment-intents?limit=1', { key: other.secretKey })).status).toBe(
        200,
      );
    }
    const rolled = await promisify(execFile)(
      net.hosts[0]!.exec[0] as string,
      [...net.hosts[0]!.exec.slice(1), process.execPath, OBOLUS_BIN, 'keys', 'roll', other.id, '--json'],
      { env: { ...process.env, OBOLUS_DATABASE_URL: databaseUrl } },
    );
    const rolledAt = Date.now();
    const { secret_key: newKey } = JSON.parse(rolled.stdout) as { secret_key: string };
    await sleep(rolledAt + 1000 - Date.now());
    for (const host of hosts.slice(1)) {
      expect((await call(host.url, 'GET', '/api/v1/payment-intents?limit=1', { key: other.secretKey })).status).toBe(
        401,
      );
    }
    for (const host of hosts) {
      expect((await call(host.url, 'GET', '/api/v1/payment-intents?limit=1', { key: newKey })).status).toBe(200);
    }
  });

  it('one key hammered on every host at once gets about its limit in all, not the limit per host', async () => {
    const limited: TestAccount = await firstAccount(cluster.url());
    // Each process tells the others it is alive once a second: wait for a whole second, then one more.
    const start = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    await sleep(start + 20 - Date.now());
    const end = start + 960;
    const statuses: number[] = [];
    await Promise.all(
      hosts.flatMap((host) =>
        [1, 2].map(async () => {
          while (Date.now() < end) {
            const answer = await call(host.url, 'GET', '/api/v1/payment-intents?limit=1', { key: limited.secretKey });
            statuses.push(answer.status);
          }
        }),
      ),
    );
    const admitted = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    // The documented bound (decision 0150) and the requests in flight at the end of the second;
    // without shared counts each host would admit the whole limit.
    const bound = RATE_LIMIT + (HOSTS - 1) * Math.ceil(RATE_LIMIT / (2 * HOSTS)) + 2 * HOSTS;
    expect(admitted).toBeLessThanOrEqual(bound);
    expect(admitted).toBeGreaterThan(0);
  });

  it('a host SIGKILLed under load: traffic goes on through the others, nothing acknowledged is lost', async () => {
    const load = startPaymentLoad(store);
    await until(() => load.record.paid.size >= 3, 30_000);
    await hosts[1]?.kill();
    const killedAt = load.record.answers.length;
    const created = load.record.created.size;
    await until(() => load.record.created.size >= created + 9, 30_000);
    const record = await load.stop();
    // Only requests in flight on the killed host may go unanswered; the rest are answered.
    const lost = record.answers.filter((answer) => answer.status !== 200);
    expect(lost.length).toBeLessThanOrEqual(3);
    expect(record.answers.slice(killedAt + 3).every((answer) => answer.status === 200)).toBe(true);
    const ids = [...record.created.keys()];
    const stored = await cluster.query<{ id: string }>(
      `select id from payment_intents where id in (${ids.map((id) => `'${id}'`).join(',')})`,
    );
    expect(stored.length).toBe(ids.length);
    const charges = await charged(ids);
    expect(charges.every((row) => row.n === '1')).toBe(true);
    for (const id of record.paid) expect(charges.map((row) => row.id)).toContain(id);
  });
});

/** The relay of one host, running in its namespace. */
async function startRelay(exec: string[], port: number, gateway: string): Promise<ChildProcess> {
  const relay = spawn(
    exec[0] as string,
    [...exec.slice(1), process.execPath, RELAY, '127.0.0.1', String(port), gateway, String(port)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  killOnExit(relay);
  let output = '';
  relay.stdout?.on('data', (d) => (output += d));
  await until(() => output.includes('relaying'), 10_000);
  return relay;
}

if (unavailable) {
  describe('three Obolus hosts in network namespaces', () => {
    it.skip(`skipped: ${unavailable}`, () => {});
  });
}
