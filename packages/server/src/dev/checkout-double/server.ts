import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiFault, Faults, type FaultTarget, issuerPage, listenDouble } from '../double-http.ts';
import { type WebhookFormat, WebhookSender } from '../stripe-double/webhooks.ts';
import { type Answer, ckoId, type Json, Payments } from './payments.ts';

/**
 * A double of the part of Checkout.com's Payments API Obolus uses, on a loopback port, for
 * tests and development (`npx obolus dev checkout-double`). It speaks Checkout.com's wire
 * format (JSON bodies, `Authorization: Bearer sk_…`, Cko-Idempotency-Key: a 2xx answer is
 * kept 24 h and replayed, a duplicate of a request still running gets 409; webhooks signed
 * with Cko-Signature) so that the real checkout-sdk-node is what talks to it. Faults (the
 * Stripe double's menu) are armed through /__double/*. Never expose it.
 */

export type { ApiFault, FaultTarget };

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  body: Json;
}

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Cko-Signature: hex HMAC-SHA256 of the raw body, keyed by the webhook's secret key. */
export const ckoSignature = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');

const CKO_FORMAT: WebhookFormat = {
  envelope: (type, data) => ({ id: ckoId('evt'), type, version: '1.0.33', created_on: new Date().toISOString(), data }),
  headers: (body, secret, fault) => ({
    'cko-signature': ckoSignature(body, fault?.fault === 'bad_signature' ? 'forged-secret-0000' : secret),
  }),
};

export interface CheckoutDouble {
  url: string;
  secretKey: string;
  webhooks: WebhookSender;
  payments: Payments;
  requests: RecordedRequest[];
  arm(target: FaultTarget, fault: ApiFault, times?: number): void;
  reset(): void;
  close(): Promise<void>;
}

interface Seen {
  body: string;
  answer: Answer | null;
  at: number;
}

export async function startCheckoutDouble(
  options: { port?: number; secretKey?: string } = {},
): Promise<CheckoutDouble> {
  const secretKey = options.secretKey ?? doubleKey();
  let url = '';
  const webhooks = new WebhookSender(CKO_FORMAT);
  const payments = new Payments(
    (type, data) => webhooks.emit(type, data),
    () => url,
  );
  const requests: RecordedRequest[] = [];
  const idempotency = new Map<string, Seen>();
  const faults = new Faults();

  const routeOf = (method: string, path: string, query: URLSearchParams) => {
    if (method === 'POST' && path === '/payments')
      return { target: 'create' as const, run: (b: Json) => payments.create(b) };
    if (method === 'GET' && path === '/payments') {
      return { target: 'search' as const, run: () => payments.byReference(query.get('reference') ?? '') };
    }
    const refund = /^\/payments\/(pay_[0-9a-z]+)\/refunds$/.exec(path)?.[1];
    if (method === 'POST' && refund) return { target: 'refund' as const, run: (b: Json) => payments.refund(refund, b) };
    const id = /^\/payments\/(pay_[0-9a-z]+)$/.exec(path)?.[1];
    if (method === 'GET' && id) return { target: 'retrieve' as const, run: () => payments.get(id) };
    return null;
  };

  /** Cko-Idempotency-Key: a 2xx answer is replayed for 24 h; a key still running, or reused with another body, gets 409. */
  const answerOnce = (key: string | null, request: string, run: () => Answer): Answer => {
    const seen = key ? idempotency.get(key) : undefined;
    const fresh = seen && Date.now() - seen.at < IDEMPOTENCY_TTL_MS ? seen : undefined;
    if (fresh && (fresh.answer === null || fresh.body !== request)) {
      return { status: 409, body: { error_type: 'request_invalid', error_codes: ['idempotency_key_in_use'] } };
    }
    if (fresh?.answer) return fresh.answer;
    if (key) idempotency.set(key, { body: request, answer: null, at: Date.now() });
    const answer = run();
    if (key && answer.status < 300) idempotency.set(key, { body: request, answer, at: Date.now() });
    else if (key) idempotency.delete(key);
    return answer;
  };

  const api = async (req: IncomingMessage, res: ServerResponse, target: URL, raw: string) => {
    const auth = req.headers.authorization ?? null;
    const header = req.headers['cko-idempotency-key'];
    const key = typeof header === 'string' && req.method === 'POST' ? header : null;
    let body: Json;
    try {
      body = raw ? (JSON.parse(raw) as Json) : {};
    } catch {
      return send(res, 422, { error_type: 'request_invalid', error_codes: ['request_body_malformed'] });
    }
    requests.push({ method: req.method ?? '', path: target.pathname, idempotencyKey: key, authorization: auth, body });
    if (auth !== `Bearer ${secretKey}`) return send(res, 401, null);
    const route = routeOf(req.method ?? '', target.pathname, target.searchParams);
    if (!route) return send(res, 404, null);
    const fault = faults.take(route.target);
    if (fault?.fault === 'error_500_before') return send(res, 500, null);
    if (fault?.fault === 'conflict_409') return send(res, 409, null);
    if (fault?.fault === 'rate_limit_429') return send(res, 429, null);
    const answer = answerOnce(key, `${req.method} ${target.pathname} ${raw}`, () => route.run(body));
    // Delivery faults: the payment is made (and its answer kept for the key), the answer is lost on the way back.
    if (fault?.fault === 'error_500_after') return send(res, 500, null);
    if (fault?.fault === 'drop_after_commit') return void req.socket.destroy();
    if (fault?.fault === 'delay_after_commit') await new Promise((r) => setTimeout(r, fault.delayMs));
    if (res.destroyed) return;
    return send(res, answer.status, answer.body);
  };

  const control = (path: string, body: Record<string, unknown>) =>
    path === '/__double/disputes' ? (payments.dispute(String(body.payment_id)) ?? {}) : null;
  const threeDS = issuerPage(
    { title: '3-D Secure test page', text: 'Checkout.com double: authenticate or fail.', complete: 'Authenticate' },
    (id, passed) => payments.completeThreeDS(id, passed),
  );
  const failed = (res: ServerResponse) => send(res, 500, null);
  const listening = await listenDouble(
    options.port ?? 0,
    { faults, webhooks, requests, control, threeDS, api, failed },
    (at) => {
      url = at;
    },
  );
  return {
    url,
    secretKey,
    webhooks,
    payments,
    requests,
    arm: (target, fault, times = 1) => faults.arm(target, fault, times),
    reset: listening.reset,
    close: listening.close,
  };
}

function send(res: ServerResponse, status: number, body: Json | null): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cko-request-id': ckoId('req'), 'cko-version': '1.0.0' });
  res.end(body === null ? '' : JSON.stringify(body));
}
/** A key of Checkout.com's shape (sk_ and 27 base32 characters), so the SDK sends it as a Bearer token. */
function doubleKey(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `sk_${[...randomBytes(27)].map((b) => alphabet[b % 32]).join('')}`;
}
