import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type ApiFault,
  type ExchangeObserver,
  Faults,
  type FaultTarget,
  issuerPage,
  listenDouble,
} from '../double-http.ts';
import { type WebhookFormat, WebhookSender } from '../stripe-double/webhooks.ts';
import { PaymentActions } from './actions.ts';
import { type Answer, ckoId, type Json, Payments } from './payments.ts';

/**
 * A double of the part of Checkout.com's Payments API Obolus uses, on a loopback port, for
 * tests and development (`npx obolus dev checkout-double`), so that the real checkout-sdk-node
 * is what talks to it. It behaves as Checkout.com documents (decision 0191):
 * - Cko-Idempotency-Key: only a 2xx answer is kept (24 h) and replayed; a request whose key
 *   is still being processed gets 429; there is no 409. A 4xx or 5xx is not kept: sending the
 *   same key again processes the request again (a second payment).
 * - Payments answer `Authorized`, then become `Captured` a moment later; refunds need
 *   `Captured`, voids and captures (`Final`: the rest released) need `Authorized`;
 *   GET /payments?reference= lists a reference's payments.
 * - Webhooks signed with Cko-Signature, shaped as the documentation's examples.
 * Faults (POST /__double/faults, targets create, retrieve, search, refund, void, actions):
 * error_500_before (nothing done), error_500_after (done, a 500 answered, the key not kept),
 * drop_after_commit and delay_after_commit (done and kept; the answer lost or late),
 * rate_limit_429, stale_list (a search that does not see the payments yet). Never expose it.
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
  actions: PaymentActions;
  requests: RecordedRequest[];
  /** Told of every API request and its answer. */
  observers: ExchangeObserver[];
  /** The next `times` calls to `target` get `fault`, after `skip` calls that go through. */
  arm(target: FaultTarget, fault: ApiFault, times?: number, skip?: number): void;
  reset(): void;
  close(): Promise<void>;
}

type Route = { target: FaultTarget; run: (body: Json) => Answer };

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
  const actions = new PaymentActions(payments);
  const requests: RecordedRequest[] = [];
  const idempotency = new Idempotency();
  const faults = new Faults(['conflict_409']);
  const observers: ExchangeObserver[] = [];

  const routeOf = (method: string, path: string, query: URLSearchParams, stale: boolean): Route | null => {
    if (method === 'POST' && path === '/payments') return { target: 'create', run: (b) => payments.create(b) };
    if (method === 'GET' && path === '/payments') {
      return { target: 'search', run: () => payments.byReference(query.get('reference') ?? '', stale) };
    }
    const [, id, action] = /^\/payments\/(pay_[0-9a-z]{26})(?:\/(refunds|voids|captures|actions))?$/.exec(path) ?? [];
    if (!id) return null;
    if (method === 'POST' && action === 'captures') return { target: 'capture', run: (b) => actions.capture(id, b) };
    if (method === 'POST' && action === 'refunds') return { target: 'refund', run: (b) => actions.refund(id, b) };
    if (method === 'POST' && action === 'voids') return { target: 'void', run: (b) => actions.void(id, b) };
    if (method === 'GET' && action === 'actions') return { target: 'actions', run: () => actions.list(id) };
    if (method === 'GET' && !action) return { target: 'retrieve', run: () => payments.get(id) };
    return null;
  };

  const api = async (req: IncomingMessage, res: ServerResponse, target: URL, raw: string) => {
    const auth = req.headers.authorization ?? null;
    const header = req.headers['cko-idempotency-key'];
    const key = typeof header === 'string' && req.method === 'POST' ? header : null;
    let body: Json;
    try {
      body = raw ? (JSON.parse(raw) as Json) : {};
    } catch {
      return send(res, 422, { request_id: ckoId('req'), error_type: 'request_invalid', error_codes: ['body_invalid'] });
    }
    requests.push({ method: req.method ?? '', path: target.pathname, idempotencyKey: key, authorization: auth, body });
    if (auth !== `Bearer ${secretKey}`) return send(res, 401, null);
    const peek = routeOf(req.method ?? '', target.pathname, target.searchParams, false);
    if (!peek) return send(res, 404, null);
    const fault = faults.take(peek.target);
    const route = routeOf(req.method ?? '', target.pathname, target.searchParams, fault?.fault === 'stale_list');
    if (!route) return send(res, 404, null);
    if (fault?.fault === 'error_500_before') return send(res, 500, null);
    if (fault?.fault === 'rate_limit_429') return send(res, 429, tooMany('rate_limit_exceeded'));
    const replayed = key ? idempotency.replay(key) : undefined;
    if (replayed) return deliver(req, res, replayed, fault);
    if (key && !idempotency.begin(key)) return send(res, 429, tooMany('duplicate_request_detected'));
    try {
      const answer = route.run(body);
      // Processed, then a 5xx: Checkout.com keeps nothing under the key, a resend processes it again.
      if (fault?.fault === 'error_500_after') return send(res, 500, null);
      // A slow answer keeps its key busy until it goes out: a duplicate meanwhile gets 429.
      if (fault?.fault === 'delay_after_commit') await new Promise((r) => setTimeout(r, fault.delayMs));
      if (key) idempotency.keep(key, answer);
      await deliver(req, res, answer, fault?.fault === 'delay_after_commit' ? null : fault);
    } finally {
      if (key) idempotency.end(key);
    }
  };

  const control = (path: string, body: Record<string, unknown>): Record<string, unknown> | null => {
    if (path === '/__double/disputes') return actions.dispute(String(body.payment_id)) ?? {};
    if (path === '/__double/settings') {
      if (body.capture_delay_ms !== undefined) payments.captureDelayMs = Number(body.capture_delay_ms);
      if (body.refund_outcome !== undefined) actions.refundOutcome = body.refund_outcome as 'refunded';
      return { capture_delay_ms: payments.captureDelayMs, refund_outcome: actions.refundOutcome };
    }
    const dispute = /^\/__double\/disputes\/(dsp_[0-9a-z]+)$/.exec(path)?.[1];
    if (dispute) return actions.closeDispute(dispute, String(body.outcome)) ?? {};
    const refund = /^\/__double\/refunds\/(act_[0-9a-z]+)$/.exec(path)?.[1];
    if (refund) return actions.settleRefund(refund, body.outcome === 'declined' ? 'declined' : 'refunded') ?? {};
    return null;
  };
  const threeDS = issuerPage(
    { title: '3-D Secure test page', text: 'Checkout.com double: authenticate or fail.', complete: 'Authenticate' },
    (id, passed) => payments.completeThreeDS(id, passed),
  );
  const failed = (res: ServerResponse) => send(res, 500, null);
  const listening = await listenDouble(
    options.port ?? 0,
    { faults, webhooks, requests, control, threeDS, api, failed, observers },
    (at) => {
      url = at;
    },
  );
  return {
    url,
    secretKey,
    webhooks,
    payments,
    actions,
    requests,
    observers,
    arm: (target, fault, times = 1, skip = 0) => faults.arm(target, fault, times, skip),
    reset() {
      listening.reset();
      idempotency.clear();
      payments.captureDelayMs = 0;
      actions.refundOutcome = 'refunded';
    },
    close: listening.close,
  };
}

/** Cko-Idempotency-Key as documented: 2xx answers kept 24 h; a key being processed is busy. */
class Idempotency {
  readonly #kept = new Map<string, { answer: Answer; at: number }>();
  readonly #running = new Set<string>();

  replay(key: string): Answer | undefined {
    const kept = this.#kept.get(key);
    return kept && Date.now() - kept.at < IDEMPOTENCY_TTL_MS ? kept.answer : undefined;
  }

  begin(key: string): boolean {
    if (this.#running.has(key)) return false;
    this.#running.add(key);
    return true;
  }

  keep(key: string, answer: Answer): void {
    if (answer.status >= 200 && answer.status < 300) this.#kept.set(key, { answer, at: Date.now() });
  }

  end(key: string): void {
    this.#running.delete(key);
  }

  clear(): void {
    this.#kept.clear();
    this.#running.clear();
  }
}

/** Delivery faults: the answer is made (and kept for the key); the network loses it or slows it. */
async function deliver(req: IncomingMessage, res: ServerResponse, answer: Answer, fault: ApiFault | null) {
  if (fault?.fault === 'drop_after_commit') return void req.socket.destroy();
  if (fault?.fault === 'delay_after_commit') await new Promise((r) => setTimeout(r, fault.delayMs));
  if (res.destroyed) return;
  send(res, answer.status, answer.body);
}

const tooMany = (code: string) => ({ request_id: ckoId('req'), error_type: 'too_many_requests', error_codes: [code] });

function send(res: ServerResponse, status: number, body: Json | Json[] | null): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cko-request-id': ckoId('req'), 'cko-version': '1.0.0' });
  res.end(body === null ? '' : JSON.stringify(body));
}

/** A key of Checkout.com's shape (sk_ and 27 base32 characters), so the SDK sends it as a Bearer token. */
function doubleKey(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `sk_${[...randomBytes(27)].map((b) => alphabet[b % 32]).join('')}`;
}
