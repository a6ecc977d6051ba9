import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type ApiFault,
  type ExchangeObserver,
  Faults,
  type FaultTarget,
  issuerPage,
  listenDouble,
} from '../double-http.ts';
import { decodeForm, type FormValue, stringList } from './form.ts';
import { errorBody, type Json } from './objects.ts';
import { type Answer, Payments } from './payments.ts';
import { Refunds } from './refunds.ts';
import { WebhookSender } from './webhooks.ts';

/**
 * A double of the subset of Stripe's API Obolus uses, on a loopback port, for tests and
 * development (`npx obolus dev stripe-double`). It speaks Stripe's wire format (form-encoded
 * requests, JSON answers and error bodies, Idempotency-Key as Stripe documents it, signed
 * webhooks) so that the real `stripe` SDK is what talks to it. Faults are armed through
 * /__double/*. It is not a security boundary: never expose it.
 */

export type { ApiFault, FaultTarget };

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  form: Record<string, FormValue>;
}

interface Stored {
  route: string;
  body: string;
  answer: Answer | null;
}

export interface StripeDouble {
  url: string;
  /** The key the double accepts as `Authorization: Bearer …`. */
  secretKey: string;
  webhooks: WebhookSender;
  payments: Payments;
  refunds: Refunds;
  requests: RecordedRequest[];
  /** Told of every API request and its answer. */
  observers: ExchangeObserver[];
  /** The next `times` calls to `target` get `fault`, after `skip` calls that go through. */
  arm(target: FaultTarget, fault: ApiFault, times?: number, skip?: number): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startStripeDouble(options: { port?: number; secretKey?: string } = {}): Promise<StripeDouble> {
  const secretKey = options.secretKey ?? 'sk_live_double0000000000000000';
  let url = '';
  const webhooks = new WebhookSender();
  const emit = (type: string, object: Json) => webhooks.emit(type, object);
  const payments = new Payments(emit, () => url);
  const refunds = new Refunds(payments, emit);
  const requests: RecordedRequest[] = [];
  const idempotency = new Map<string, Stored>();
  const faults = new Faults();
  const observers: ExchangeObserver[] = [];

  const handleApi = async (req: IncomingMessage, res: ServerResponse, path: string, raw: string) => {
    const auth = req.headers.authorization ?? null;
    const form = decodeForm(req.method === 'GET' ? new URL(req.url ?? '', 'http://x').search.slice(1) : raw);
    const key = headerOf(req, 'idempotency-key');
    requests.push({ method: req.method ?? '', path, idempotencyKey: key, authorization: auth, form });
    if (auth !== `Bearer ${secretKey}`) {
      return send(res, 401, errorBody({ type: 'invalid_request_error', message: 'Invalid API Key provided.' }));
    }
    const route = routeOf(req.method ?? '', path);
    if (!route)
      return send(
        res,
        404,
        errorBody({ type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path}).` }),
      );
    const fault = faults.take(route.target);
    if (fault?.fault === 'stale_list' && route.target === 'search') {
      const f = decodeForm(new URL(req.url ?? '', 'http://x').search.slice(1));
      return send(res, 200, payments.search(String(f.query ?? ''), stringList(f.expand), true).body);
    }
    if (fault?.fault === 'error_500_before') return send(res, 500, apiError());
    if (fault?.fault === 'conflict_409') return send(res, 409, inProgress(key ?? ''));
    if (fault?.fault === 'rate_limit_429') {
      res.setHeader('Retry-After', String(fault.retryAfter ?? 1));
      return send(
        res,
        429,
        errorBody({
          type: 'invalid_request_error',
          code: 'rate_limit',
          message: 'Too many requests hit the API too quickly.',
        }),
      );
    }
    const routeKey = `${req.method} ${path}`;
    let answer: Answer;
    const seen = req.method === 'POST' && key ? idempotency.get(key) : undefined;
    if (seen && (seen.route !== routeKey || seen.body !== raw)) {
      answer = {
        status: 400,
        body: errorBody({
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        }),
      };
    } else if (seen && !seen.answer) {
      answer = { status: 409, body: inProgress(key ?? '') };
    } else if (seen?.answer) {
      res.setHeader('Idempotent-Replayed', 'true');
      answer = seen.answer;
    } else {
      if (req.method === 'POST' && key) idempotency.set(key, { route: routeKey, body: raw, answer: null });
      answer = route.run(form);
      // Stripe saves the answer of a request that began executing, a 500 included, and replays it.
      if (fault?.fault === 'error_500_after') answer = { status: 500, body: apiError() };
      if (req.method === 'POST' && key) idempotency.set(key, { route: routeKey, body: raw, answer });
    }
    if (key) res.setHeader('Idempotency-Key', key);
    // Delivery faults hit a replayed answer too: the network, not Stripe, lost it.
    if (fault?.fault === 'drop_after_commit') return void req.socket.destroy();
    if (fault?.fault === 'delay_after_commit') await heldBack(res, fault, webhooks);
    if (res.destroyed) return;
    return send(res, answer.status, answer.body);
  };

  const routeOf = (method: string, path: string) => {
    const form = (run: (f: Record<string, FormValue>) => Answer, target: FaultTarget) => ({ run, target });
    if (method === 'POST' && path === '/v1/payment_intents') return form((f) => payments.create(f), 'create');
    if (method === 'POST' && path === '/v1/refunds') return form((f) => refunds.create(f), 'refund');
    if (method === 'GET' && path === '/v1/payment_intents/search') {
      return form((f) => payments.search(String(f.query ?? ''), stringList(f.expand)), 'search');
    }
    const id = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)$/.exec(path)?.[1];
    if (method === 'GET' && id) return form((f) => payments.retrieve(id, stringList(f.expand)), 'retrieve');
    const capture = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)\/capture$/.exec(path)?.[1];
    if (method === 'POST' && capture) {
      return form((f) => payments.capture(capture, f, stringList(f.expand)), 'capture');
    }
    const cancel = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)\/cancel$/.exec(path)?.[1];
    if (method === 'POST' && cancel) return form((f) => payments.cancel(cancel, stringList(f.expand)), 'void');
    return null;
  };

  const control = (path: string, body: Record<string, unknown>) => {
    if (path === '/__double/disputes') return payments.dispute(String(body.payment_intent)) ?? {};
    const dispute = /^\/__double\/disputes\/([A-Za-z0-9_]+)$/.exec(path)?.[1];
    if (dispute) return payments.closeDispute(dispute, body.status === 'won' ? 'won' : 'lost') ?? {};
    const refund = /^\/__double\/refunds\/([A-Za-z0-9_]+)$/.exec(path)?.[1];
    return refund ? (refunds.setStatus(refund, body.status as 'failed') ?? {}) : null;
  };
  const threeDS = issuerPage(
    {
      title: '3D Secure 2 Test Page',
      text: 'Stripe double: complete or fail the authentication.',
      complete: 'Complete',
    },
    (id, passed) => payments.completeThreeDS(id, passed),
  );
  const api = (req: IncomingMessage, res: ServerResponse, target: URL, raw: string) =>
    handleApi(req, res, target.pathname, raw);
  const failed = (res: ServerResponse) => send(res, 500, apiError());
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
    refunds,
    requests,
    observers,
    arm: (target, fault, times = 1, skip = 0) => faults.arm(target, fault, times, skip),
    reset: listening.reset,
    close: listening.close,
  };
}

/**
 * A slow answer: held `delayMs`, or with `untilWebhooksSent` until the events the call caused
 * have been delivered (at most `delayMs`). A client that hangs up meanwhile ends the wait: the
 * answer is lost, as it would be at Stripe, and no timer outlives the exchange, so a test can
 * hold an answer "for ever" and go on once the connector has given up.
 */
function heldBack(
  res: ServerResponse,
  fault: Extract<ApiFault, { fault: 'delay_after_commit' }>,
  webhooks: WebhookSender,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, fault.delayMs);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
    res.once('close', done);
    if (fault.untilWebhooksSent) void webhooks.settled().then(done);
  });
}

const apiError = () => errorBody({ type: 'api_error', message: 'An unknown error occurred.' });
const inProgress = (key: string) =>
  errorBody({
    type: 'idempotency_error',
    code: 'idempotency_key_in_use',
    message: `There is currently another in-progress request using this Stripe-Idempotency-Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
  });

function send(res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_double${Date.now().toString(36)}`,
    'stripe-version': '2025-01-27.acacia',
  });
  res.end(text);
}

const headerOf = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
};
