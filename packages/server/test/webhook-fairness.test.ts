import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENDPOINTS_PER_ACCOUNT } from '../src/domain/webhooks/endpoints.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver } from './support/webhook-receiver.ts';

/** A loopback receiver that reads every request and never answers, counting what hangs on each path. */
async function startHangingReceiver() {
  const open = new Map<string, number>();
  let maxOpenPerPath = 0;
  let requests = 0;
  let ended = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    requests++;
    const path = request.url ?? '';
    open.set(path, (open.get(path) ?? 0) + 1);
    maxOpenPerPath = Math.max(maxOpenPerPath, open.get(path) ?? 0);
    // The answer's close: the sender hung up (a request's own close comes once its body is read).
    response.on('close', () => {
      open.set(path, (open.get(path) ?? 1) - 1);
      ended++;
    });
    request.resume();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests: () => requests,
    /** Requests the sender gave up on (its 10 s timeout): none while every sender is still held. */
    ended: () => ended,
    maxOpenPerPath: () => maxOpenPerPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.each(ENGINES)('webhook fairness across merchants (%s)', (engine) => {
  let otherShop: TestAccount;
  let hanging: Awaited<ReturnType<typeof startHangingReceiver>>;
  // The real dispatcher loop of `obolus serve`, polling every 50 ms, on the real clock.
  const { t, shop: slowShop } = useTestServer(engine, {
    config: { webhooksAllowLoopback: true, webhooksPollMs: 50 },
    withAccount: 'Slow Shop',
  });
  beforeAll(async () => {
    otherShop = await t.newAccount('Other Shop');
    hanging = await startHangingReceiver();
  });
  afterAll(() => hanging?.close());
  const healthy = useReceiver();

  const addEndpoint = (account: TestAccount, url: string) =>
    t.call('POST', '/api/v1/webhook-endpoints', {
      key: account.secretKey,
      body: { url, enabled_events: ['*'], mode: 'sandbox' },
    });
  const createIntent = (account: TestAccount) =>
    t.call('POST', '/api/v1/payment-intents', {
      key: account.secretKey,
      body: { amount: 1000, currency: 'USD', mode: 'sandbox' },
    });

  it(`an account may have ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints, and the next is refused with a clear error`, async () => {
    for (let i = 1; i <= MAX_ENDPOINTS_PER_ACCOUNT; i++) {
      expect((await addEndpoint(slowShop, `${hanging.url}/hook/${i}`)).status).toBe(200);
    }
    const refused = await addEndpoint(slowShop, `${hanging.url}/hook/17`);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ type: 'invalid_request', code: 'endpoint_limit_reached' });
    expect(refused.json.error.message).toContain(`at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints`);
    const list = await t.call('GET', '/api/v1/webhook-endpoints?limit=100', { key: slowShop.secretKey });
    expect(list.json.data).toHaveLength(MAX_ENDPOINTS_PER_ACCOUNT);
  });

  it("another merchant's webhook is not delayed by one whose endpoints all hang", async () => {
    // 16 hanging endpoints x 5 events: 80 deliveries that each hold a sender for the 10 s timeout.
    for (let i = 0; i < 5; i++) expect((await createIntent(slowShop)).status).toBe(200);
    await waitFor(() => hanging.requests() >= 16, 5_000);

    expect((await addEndpoint(otherShop, `${healthy.url}/hooks`)).status).toBe(200);
    const started = Date.now();
    const intent = (await createIntent(otherShop)).json;
    let endedBefore = -1;
    await waitFor(() => {
      if (!healthy.received.some((w) => w.json?.data?.object?.id === intent.id)) return false;
      endedBefore = hanging.ended();
      return true;
    }, 20_000);
    const delay = Date.now() - started;
    // Before: claimed 20 at a time, oldest first, each batch waiting for its slowest send (10 s
    // each): the other merchant's webhook went out only after hanging sends had timed out. Now it
    // arrives while every hanging send still holds its sender: an order, not a duration (0272).
    expect(endedBefore, `${endedBefore} hanging sends had timed out first (after ${delay} ms)`).toBe(0);
    // Each hanging endpoint held at most its own share of senders.
    expect(hanging.maxOpenPerPath()).toBeLessThanOrEqual(4);
  });
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
