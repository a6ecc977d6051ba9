/**
 * The whole Obolus integration in one small merchant server (no dependencies):
 *
 *   1. the server creates a payment intent with its secret key;
 *   2. the page mounts the checkout widget with the loader and the intent's client_secret;
 *   3. the page shows the widget's result, and asks the server, which asks Obolus,
 *      whether the order is really paid (never trust the browser alone).
 *
 * Run it beside `npm start` (which prints the demo account's keys on first start):
 *
 *   OBOLUS_SECRET_KEY=sk_… OBOLUS_CLIENT_KEY=pk_… npx node examples/merchant/server.ts
 *
 * and open http://localhost:3000. OBOLUS_URL (default http://localhost:4242, as npm start prints it) and
 * PORT (default 3000) are optional.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ExampleOptions {
  obolusUrl: string;
  secretKey: string;
  clientKey: string;
  port?: number;
  host?: string;
}

export interface RunningExample {
  url: string;
  close(): Promise<void>;
}

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

function checkoutPage(options: ExampleOptions, integrity: string, intent: Record<string, unknown>): string {
  const mount = JSON.stringify({ clientSecret: intent.client_secret, mode: 'sandbox' });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Example shop · checkout</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}</style>
<script type="module" src="${escapeHtml(options.obolusUrl)}/js/v1/obolus.js" integrity="${integrity}" crossorigin="anonymous"></script>
</head><body>
<h1>Example shop</h1>
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

async function handle(options: ExampleOptions, integrity: string, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://example');
  if (url.pathname === '/') {
    // A real shop creates the intent once per order and keeps its id with the order.
    const intent = await obolus(options, 'POST', '/api/v1/payment-intents', {
      amount: 2000,
      currency: 'USD',
      mode: 'sandbox',
      description: 'Two books',
      reference: `order-${Date.now()}`,
    });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    return res.end(checkoutPage(options, integrity, intent));
  }
  if (url.pathname === '/order-status') {
    const id = url.searchParams.get('payment_intent') ?? '';
    if (!/^[0-9a-f]{24}$/.test(id)) {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end('{"error":"payment_intent must be an intent id"}');
    }
    const intent = await obolus(options, 'GET', `/api/v1/payment-intents/${id}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ status: intent.status }));
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
}

export async function startExampleMerchant(options: ExampleOptions): Promise<RunningExample> {
  const integrity = await loaderIntegrity(options.obolusUrl);
  const server = createServer((req, res) => {
    handle(options, integrity, req, res).catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : 'error');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, host, resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://localhost:${port}`, close: () => new Promise((done) => server.close(() => done())) };
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
    port: Number(process.env.PORT ?? 3000),
  });
  console.log(`Example shop on ${example.url}`);
}
