import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Event } from './api-types.ts';
import { ObolusError } from './errors.ts';

/** Header values as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

const refuse = (message: string) =>
  new ObolusError({ type: 'invalid_request', code: 'webhook_signature_invalid', message });

function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));

/**
 * The Standard Webhooks signature (`v1,<base64 HMAC-SHA256>`) of one message, as Obolus and
 * the `standardwebhooks` library compute it. Useful to test a receiver.
 */
export function sign(message: { id: string; timestamp: number; body: string | Uint8Array }, secret: string): string {
  const signed = `${message.id}.${message.timestamp}.${text(message.body)}`;
  return `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`;
}

/**
 * Checks a webhook's `webhook-id`, `webhook-timestamp` (within 5 minutes) and
 * `webhook-signature` against the endpoint's `whsec_…` secret and returns the event. Pass
 * the body exactly as received (before any JSON parsing). Throws an ObolusError otherwise.
 */
export function verify(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): Event {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw refuse('Missing webhook-id, webhook-timestamp or webhook-signature.');
  const seconds = Number(timestamp);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? TOLERANCE_SECONDS;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > tolerance) {
    throw refuse('The webhook-timestamp is too old or too new.');
  }
  const expected = Buffer.from(sign({ id, timestamp: seconds, body: rawBody }, secret));
  const matches = signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw refuse('No signature in webhook-signature matches this secret.');
  return JSON.parse(text(rawBody)) as Event;
}
