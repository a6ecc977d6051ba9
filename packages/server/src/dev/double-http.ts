import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookFault, WebhookSender } from './stripe-double/webhooks.ts';

/**
 * What the acquirer doubles (stripe-double/, checkout-double/) share: the armed faults, the
 * loopback listener with its three areas (/__double/* control, /3ds/* the issuer's page,
 * the rest the API), and the control paths every double answers alike.
 */

/** The same menu in every double (docs/live.md). */
export type ApiFault =
  /**
   * The call is done and kept, its answer sent `delayMs` late. The Stripe double also stops
   * waiting when the client hangs up, and with `untilWebhooksSent` answers as soon as the
   * events the call caused were delivered.
   */
  | { fault: 'delay_after_commit'; delayMs: number; untilWebhooksSent?: boolean }
  | { fault: 'drop_after_commit' }
  | { fault: 'error_500_before' }
  | { fault: 'error_500_after' }
  | { fault: 'conflict_409' }
  | { fault: 'rate_limit_429'; retryAfter?: number }
  /** A search (lookup by our reference) answers as if nothing were made yet: the acquirer's list lags. */
  | { fault: 'stale_list' };

/** Which call a fault hits: a payment's creation, its retrieval, a search, a refund, a void, the list of a payment's actions. */
export type FaultTarget = 'create' | 'retrieve' | 'search' | 'refund' | 'void' | 'capture' | 'actions';

export class Faults {
  #armed: { target: FaultTarget; fault: ApiFault; left: number; skip: number }[] = [];
  /** Faults this acquirer cannot produce (Checkout.com never answers 409). */
  readonly #impossible: readonly ApiFault['fault'][];

  constructor(impossible: readonly ApiFault['fault'][] = []) {
    this.#impossible = impossible;
  }

  /** The next `times` calls to `target` get `fault`, after `skip` calls that go through. */
  arm(target: FaultTarget, fault: ApiFault, times = 1, skip = 0): void {
    if (this.#impossible.includes(fault.fault)) throw new Error(`this acquirer never answers ${fault.fault}`);
    this.#armed.push({ target, fault, left: times, skip });
  }

  take(target: FaultTarget): ApiFault | null {
    const armed = this.#armed.find((f) => f.target === target && f.left > 0);
    if (!armed) return null;
    if (armed.skip > 0) {
      armed.skip -= 1;
      return null;
    }
    armed.left -= 1;
    return armed.fault;
  }

  clear(): void {
    this.#armed = [];
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, raw: string) => unknown;

/** One request to a double's API and its answer, as seen on the wire (status 0: the connection was dropped). */
export interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  answer: string;
}

/** Told of every API exchange once it is answered: the test suite checks them against the acquirer's definitions. */
export type ExchangeObserver = (exchange: Exchange) => void;

export interface DoubleParts {
  faults: Faults;
  webhooks: WebhookSender;
  requests: unknown[];
  /** Control paths of this double only (disputes, refund states, …); null when not one. */
  control(path: string, body: Record<string, unknown>): Record<string, unknown> | null;
  threeDS: Handler;
  api: Handler;
  /** The acquirer's own answer to an error inside the double. */
  failed(res: ServerResponse): void;
  observers: ExchangeObserver[];
}

export interface ListeningDouble {
  url: string;
  reset(): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (`port` 0 picks one) and routes requests to the double's parts. */
export async function listenDouble(
  port: number,
  parts: DoubleParts,
  onUrl: (url: string) => void,
): Promise<ListeningDouble> {
  const reset = () => {
    parts.faults.clear();
    parts.requests.length = 0;
    parts.webhooks.reset();
  };
  const control = (res: ServerResponse, path: string, raw: string) => {
    let answer: Record<string, unknown> | null;
    try {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      answer = sharedControl(path, body, parts, reset) ?? parts.control(path, body);
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: (error as Error).message }));
    }
    res.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer ?? { error: 'unknown control path' }));
  };
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    try {
      if (url.pathname.startsWith('/__double/')) return control(res, url.pathname, raw);
      if (url.pathname.startsWith('/3ds/')) return await parts.threeDS(req, res, url, raw);
      observe(req, res, url, raw, parts.observers);
      await parts.api(req, res, url, raw);
    } catch {
      if (!res.headersSent) parts.failed(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onUrl(url);
  return {
    url,
    reset,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await parts.webhooks.settled();
    },
  };
}

/** Captures the answer as it is written and tells the observers at once (or when the connection drops unanswered). */
function observe(req: IncomingMessage, res: ServerResponse, url: URL, raw: string, observers: ExchangeObserver[]) {
  if (observers.length === 0) return;
  const { pathname: path, searchParams: query } = url;
  const exchange = { method: req.method ?? '', path, query, headers: req.headers, body: raw, status: 0, answer: '' };
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    for (const observer of observers) observer(exchange);
  };
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    exchange.status = res.statusCode;
    exchange.answer = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    tell();
    return end(chunk);
  }) as typeof res.end;
  res.once('close', tell);
}

function sharedControl(path: string, body: Record<string, unknown>, parts: DoubleParts, reset: () => void) {
  switch (path) {
    case '/__double/faults':
      parts.faults.arm(
        (body.target as FaultTarget) ?? 'create',
        body as unknown as ApiFault,
        Number(body.times ?? 1),
        Number(body.skip ?? 0),
      );
      return { armed: true };
    case '/__double/webhook-faults':
      parts.webhooks.arm(body as unknown as WebhookFault);
      return { armed: true };
    case '/__double/webhook-endpoint':
      parts.webhooks.endpoint = { url: String(body.url), secret: String(body.secret) };
      return { ok: true };
    case '/__double/requests':
      return { requests: parts.requests };
    case '/__double/reset':
      reset();
      return { ok: true };
    default:
      return null;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The issuer's 3-D Secure page at /3ds/<payment id>: GET shows it, POST action=complete|fail
 * decides the payment (`decide` answers where the shopper goes back, null when unknown) and
 * redirects there with 303.
 */
export function issuerPage(
  page: { title: string; text: string; complete: string },
  decide: (paymentId: string, passed: boolean) => string | null,
): (req: IncomingMessage, res: ServerResponse, url: URL, raw: string) => void {
  return (req, res, url, raw) => {
    const id = url.pathname.slice('/3ds/'.length);
    if (req.method === 'POST') {
      const back = decide(id, new URLSearchParams(raw).get('action') === 'complete');
      if (!back)
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown payment"}');
      return void res.writeHead(303, { location: back }).end();
    }
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title}</title></head>
<body><h1>${page.title}</h1><p>${page.text}</p>
<form method="post"><button name="action" value="complete" id="complete">${page.complete}</button>
<button name="action" value="fail" id="fail">Fail</button></form></body></html>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  };
}
