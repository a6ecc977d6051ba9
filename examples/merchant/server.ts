/**
 * The whole Obolus integration in one small merchant server (one dependency, standardwebhooks):
 *
 *   1. the server creates a payment intent with its secret key and keeps the order;
 *   2. the page mounts the checkout widget with the loader and the intent's client_secret;
 *   3. Obolus tells the server by a signed webhook (POST /webhooks) that the order is paid;
 *      the page shows the widget's result and asks the server, which asks Obolus, whether
 *      the order is really paid (never trust the browser alone).
 *
 * Run it beside `npm start` (which prints the demo account's keys on first start):
 *
 *   OBOLUS_SECRET_KEY=sk_… OBOLUS_CLIENT_KEY=pk_… OBOLUS_WEBHOOK_SECRET=whsec_… npx node examples/merchant/server.ts
 *
 * and open http://localhost:3000 (http://localhost:3000/?theme=dark for the dark theme). The
 * webhook secret comes from `npx obolus listen --forward-to http://localhost:3000/webhooks`
 * or from registering http://localhost:3000/webhooks as a sandbox endpoint. OBOLUS_URL
 * (default http://localhost:4242, as npm start prints it) and PORT (default 3000) are optional.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface ExampleOptions {
  obolusUrl: string;
  secretKey: string;
  clientKey: string;
  /** whsec_…: verifies POST /webhooks; without it the route answers 503. */
  webhookSecret?: string;
  port?: number;
  host?: string;
}

export interface RunningExample {
  url: string;
  /** The shop's orders by payment intent id: `paid` once a verified webhook said so. */
  orders: Map<string, Order>;
  close(): Promise<void>;
}

export interface Order {
  reference: string;
  status: 'awaiting_payment' | 'paid';
}

type Theme = 'light' | 'dark';

async function obolus(options: ExampleOptions, method: string, path: string, body?: object) {
  const response = await fetch(`${options.obolusUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.secretKey}`,
      ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`Obolus answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** The loader pinned by Subresource Integrity: in production, paste the hash from the docs instead. */
async function loaderIntegrity(obolusUrl: string): Promise<string> {
  const code = Buffer.from(await (await fetch(`${obolusUrl}/js/v1/obolus.js`)).arrayBuffer());
  return `sha384-${createHash('sha384').update(code).digest('base64')}`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE_CSS = {
  light:
    'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1f36;background:#fff}a{color:#4f46e5}',
  dark: 'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#e6e8f0;background:#14161f}a{color:#a5b4fc}',
};

function checkoutPage(
  options: ExampleOptions,
  integrity: string,
  intent: Record<string, unknown>,
  theme: Theme,
): string {
  const mount = JSON.stringify({ clientSecret: intent.client_secret, mode: 'sandbox', theme });
  const other: Theme = theme === 'dark' ? 'light' : 'dark';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Example shop · checkout</title>
<style>${PAGE_CSS[theme]}</style>
<script type="module" src="${escapeHtml(options.obolusUrl)}/js/v1/obolus.js" integrity="${integrity}" crossorigin="anonymous"></script>
</head><body>
<h1>Example shop</h1>
<p><a href="/?theme=${other}">Switch to the ${other} theme</a></p>
<p>Order: two books, <strong>$20.00</strong>. Pay with the test card 4242 4242 4242 4242.</p>
<div id="checkout"></div>
<p id="result" role="status"></p>
<script type="module">
  const result = document.getElementById('result');
  window.Obolus(${JSON.stringify(options.clientKey)}, { baseUrl: ${JSON.stringify(options.obolusUrl)} }).mount('#checkout', {
    ...${mount},
    onResult: async (outcome) => {
      if (!outcome.success) {
        result.textContent = 'Not paid: ' + (outcome.error ? outcome.error.message : outcome.status);
        return;
      }
      // The browser says paid; the server confirms with Obolus before the order ships.
      const order = await (await fetch('/order-status?payment_intent=' + encodeURIComponent(outcome.payment_intent))).json();
      result.textContent = order.status === 'succeeded' ? 'Paid, confirmed by the shop server.' : 'Payment ' + order.status;
    },
  });
</script></body></html>`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 1_000_000) throw new Error('webhook body too large');
  }
  return body;
}

/** POST /webhooks: verify with the Standard Webhooks library, then mark the order paid. */
async function receiveWebhook(
  options: ExampleOptions,
  orders: Map<string, Order>,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const json = (status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (!options.webhookSecret) return json(503, { error: 'set OBOLUS_WEBHOOK_SECRET to the whsec_… secret' });
  const rawBody = await readBody(req);
  let event: { type: string; data: { object: { id: string } } };
  try {
    // Verify the exact bytes received, before parsing: a forged or stale webhook throws here.
    event = new Webhook(options.webhookSecret).verify(rawBody, req.headers as Record<string, string>) as typeof event;
  } catch {
    return json(400, { error: 'invalid signature' });
  }
  // Events arrive at least once and in any order: marking paid twice is harmless.
  const order = orders.get(event.data.object.id);
  if (event.type === 'payment_intent.succeeded' && order) order.status = 'paid';
  json(200, { received: true });
}

async function handle(
  options: ExampleOptions,
  integrity: string,
  orders: Map<string, Order>,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const url = new URL(req.url ?? '/', 'http://example');
  if (url.pathname === '/webhooks' && req.method === 'POST') return receiveWebhook(options, orders, req, res);
  if (url.pathname === '/') {
    const theme: Theme = url.searchParams.get('theme') === 'dark' ? 'dark' : 'light';
    // A real shop creates the intent once per order and keeps its id with the order.
    const reference = `order-${Date.now()}`;
    const intent = await obolus(options, 'POST', '/api/v1/payment-intents', {
      amount: 2000,
      currency: 'USD',
      mode: 'sandbox',
      description: 'Two books',
      reference,
    });
    orders.set(String(intent.id), { reference, status: 'awaiting_payment' });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    return res.end(checkoutPage(options, integrity, intent, theme));
  }
  if (url.pathname === '/order-status') {
    const id = url.searchParams.get('payment_intent') ?? '';
    if (!/^[0-9a-f]{24}$/.test(id)) {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end('{"error":"payment_intent must be an intent id"}');
    }
    const intent = await obolus(options, 'GET', `/api/v1/payment-intents/${id}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ status: intent.status, order: orders.get(id)?.status ?? null }));
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
}

export async function startExampleMerchant(options: ExampleOptions): Promise<RunningExample> {
  const integrity = await loaderIntegrity(options.obolusUrl);
  const orders = new Map<string, Order>();
  const server = createServer((req, res) => {
    handle(options, integrity, orders, req, res).catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : 'error');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, host, resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://localhost:${port}`, orders, close: () => new Promise((done) => server.close(() => done())) };
}

if (import.meta.main) {
  const { OBOLUS_SECRET_KEY, OBOLUS_CLIENT_KEY } = process.env;
  if (!OBOLUS_SECRET_KEY || !OBOLUS_CLIENT_KEY) {
    console.error('Set OBOLUS_SECRET_KEY and OBOLUS_CLIENT_KEY (npm start prints them on first start).');
    process.exit(2);
  }
  const example = await startExampleMerchant({
    obolusUrl: (process.env.OBOLUS_URL ?? 'http://localhost:4242').replace(/\/+$/, ''),
    secretKey: OBOLUS_SECRET_KEY,
    clientKey: OBOLUS_CLIENT_KEY,
    ...(process.env.OBOLUS_WEBHOOK_SECRET ? { webhookSecret: process.env.OBOLUS_WEBHOOK_SECRET } : {}),
    port: Number(process.env.PORT ?? 3000),
  });
  console.log(`Example shop on ${example.url}`);
  if (!process.env.OBOLUS_WEBHOOK_SECRET)
    console.log('Set OBOLUS_WEBHOOK_SECRET=whsec_… to receive webhooks on /webhooks.');
}
