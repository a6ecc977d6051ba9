import { createHmac } from 'node:crypto';
import { type Json, nowSeconds, stripeId } from './objects.ts';

export type WebhookFault =
  | { fault: 'duplicate' }
  | { fault: 'late'; delayMs: number }
  /** The next `count` events are held and sent newest first. */
  | { fault: 'out_of_order'; count: number }
  | { fault: 'bad_signature' }
  /** Signed as if sent 10 minutes ago: outside the 5-minute tolerance. */
  | { fault: 'stale' }
  /** Signed as if sent 10 minutes from now: as far outside the tolerance. */
  | { fault: 'future' };

export interface SentWebhook {
  id: string;
  type: string;
  status: number | null;
}

/** Stripe's scheme: `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the whsec_ secret>`. */
export function stripeSignature(body: string, secret: string, timestamp = nowSeconds()): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** How an acquirer wraps and signs its events (Stripe's by default; the Checkout.com double passes its own). */
export interface WebhookFormat {
  envelope(type: string, object: Json): Json;
  headers(body: string, secret: string, fault: WebhookFault | undefined): Record<string, string>;
}

const STRIPE_FORMAT: WebhookFormat = {
  envelope: (type, object) => ({
    id: stripeId('evt'),
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: nowSeconds(),
    data: { object },
    livemode: true,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  }),
  headers: (body, secret, fault) => ({
    'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    'stripe-signature': stripeSignature(
      body,
      fault?.fault === 'bad_signature' ? 'whsec_forged' : secret,
      fault?.fault === 'stale' ? nowSeconds() - 600 : fault?.fault === 'future' ? nowSeconds() + 600 : nowSeconds(),
    ),
  }),
};

/** Sends events to the one endpoint registered, as the acquirer does, with the faults armed. */
export class WebhookSender {
  readonly format: WebhookFormat;
  constructor(format: WebhookFormat = STRIPE_FORMAT) {
    this.format = format;
  }

  /**
   * When set, an answer of 5xx or none is sent again, as the acquirers retry a failed delivery
   * (their hours of backoff compressed to `afterMs`), up to `times`. Off by default, so a test
   * that counts deliveries sees each one it caused.
   */
  redeliver: { afterMs: number; times: number } | null = null;

  endpoint: { url: string; secret: string } | null = null;
  /** Told of every event the double emits (the test suite checks it against the acquirer's definitions). */
  readonly observers: ((event: Json) => void)[] = [];
  readonly sent: SentWebhook[] = [];
  readonly events: Json[] = [];
  #faults: WebhookFault[] = [];
  #held: Json[] = [];
  #holding = 0;
  #pending = new Set<Promise<void>>();

  arm(fault: WebhookFault): void {
    if (fault.fault === 'out_of_order') this.#holding = fault.count;
    else this.#faults.push(fault);
  }

  reset(): void {
    this.redeliver = null;
    this.#faults = [];
    this.#held = [];
    this.#holding = 0;
    this.sent.length = 0;
    this.events.length = 0;
  }

  emit(type: string, object: Json): void {
    const event = this.format.envelope(type, object);
    this.events.push(event);
    for (const observer of this.observers) observer(event);
    if (this.#holding > 0) {
      this.#held.push(event);
      if (--this.#holding === 0) for (const held of this.#held.splice(0).reverse()) this.#dispatch(held);
      return;
    }
    this.#dispatch(event);
  }

  /** Sends an event again, as Stripe's retries and the dashboard's "resend" do. */
  resend(id: string): boolean {
    const event = this.events.find((e) => e.id === id);
    if (event) this.#dispatch(event);
    return Boolean(event);
  }

  /** Resolves once every send under way has finished. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #dispatch(event: Json): void {
    const fault = this.#faults.shift();
    const send = async () => {
      if (fault?.fault === 'late') await new Promise((r) => setTimeout(r, fault.delayMs));
      let status = await this.#send(event, fault);
      const redeliver = this.redeliver;
      for (let retry = 0; redeliver && retry < redeliver.times; retry++) {
        if (status !== null && status < 500) break;
        await new Promise((r) => setTimeout(r, redeliver.afterMs));
        status = await this.#send(event, undefined);
      }
      if (fault?.fault === 'duplicate') await this.#send(event, undefined);
    };
    const running = send().finally(() => this.#pending.delete(running));
    this.#pending.add(running);
  }

  /** An event as it would be sent now (body and signature headers), for tests that post it themselves. */
  signed(event: Json, secret: string): { body: string; headers: Record<string, string> } {
    return {
      body: JSON.stringify(event, null, 2),
      headers: this.format.headers(JSON.stringify(event, null, 2), secret, undefined),
    };
  }

  async #send(event: Json, fault: WebhookFault | undefined): Promise<number | null> {
    if (!this.endpoint) return 200;
    const body = JSON.stringify(event, null, 2);
    let status: number | null = null;
    try {
      const res = await fetch(this.endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          ...this.format.headers(body, this.endpoint.secret, fault),
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch {
      status = null;
    }
    this.sent.push({ id: String(event.id), type: String(event.type), status });
    return status;
  }
}
