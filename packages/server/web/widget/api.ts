/**
 * The widget's calls to its own origin's internal API (/embed/v1, docs/widget-protocol.md).
 * Every answer comes back as a value: the form decides what a failure means to the shopper.
 */

export interface ApiErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
}

export interface ShopperIntent {
  id: string;
  amount: number;
  currency: string;
  mode: 'live' | 'sandbox';
  status: string;
  merchant_name: string;
  description: string | null;
  /** The merchant's order reference. */
  reference: string | null;
  theme: 'light' | 'dark' | null;
  /** The server's clock in ms: card ciphertexts are dated by it. */
  server_time: number;
  /** The latest attempt (the paid one, or the one under way). */
  transaction_id: string | null;
  /** Set while that attempt waits on 3-D Secure: the widget resumes the challenge. */
  challenge_url?: string;
}

/** What confirm and a finished 3-D Secure challenge answer. */
export interface Outcome {
  success: boolean;
  status: 'succeeded' | 'requires_capture' | 'failed' | 'requires_action' | 'processing';
  payment_intent: string;
  transaction_id: string;
  challenge_url?: string;
  error?: { type: string; code: string; message: string };
}

export type Answer<T> = { ok: true; body: T } | { ok: false; error: ApiErrorBody };

/** A card-encryption public key of the JWKS: P-256 (`crv`, `x`, `y`) or, before those, RSA (`n`, `e`). */
export interface Jwk {
  kty: string;
  kid: string;
  alg?: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

const NETWORK_ERROR: ApiErrorBody = {
  type: 'api_connection',
  code: 'network_error',
  message: 'We could not reach the payment service. Check your connection and try again.',
};

async function call<T>(path: string, body?: object): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: body ? 'POST' : 'GET',
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : null,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    return { ok: false, error: NETWORK_ERROR };
  }
  const json = (await response.json().catch(() => null)) as { error?: ApiErrorBody } | null;
  if (response.ok && json) return { ok: true, body: json as T };
  return { ok: false, error: json?.error ?? { ...NETWORK_ERROR, code: 'server_error' } };
}

export const fetchIntent = (pk: string, clientSecret: string) =>
  call<ShopperIntent>('/embed/v1/intent', { pk, client_secret: clientSecret });

export const confirm = (body: { pk: string; client_secret: string; mode: string; card: string }) =>
  call<Outcome>('/embed/v1/confirm', body);

/** The first P-256 key, else the first key, is the one to encrypt to (docs/widget-protocol.md). */
export async function fetchEncryptionKey(): Promise<Jwk> {
  const answer = await call<{ keys: Jwk[] }>('/embed/v1/jwks.json');
  const keys = answer.ok ? (answer.body.keys ?? []) : [];
  const key = keys.find((k) => k.kty === 'EC') ?? keys[0];
  if (!key) throw new Error('no card-encryption key');
  return key;
}

export function isOutcome(value: unknown): value is Outcome {
  if (typeof value !== 'object' || value === null) return false;
  const outcome = value as Partial<Outcome>;
  return (
    typeof outcome.success === 'boolean' &&
    typeof outcome.payment_intent === 'string' &&
    ['succeeded', 'requires_capture', 'failed', 'requires_action', 'processing'].includes(outcome.status as string)
  );
}
