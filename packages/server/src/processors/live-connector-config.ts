/** How the operator points Obolus at an acquirer (docs/live-connector.md, docs/operations.md). */
export interface LiveConnectorConfig {
  /** Base address; the protocol's paths (/authorizations…) are appended to it. */
  url: URL;
  /** Sent as `Authorization: Bearer <key>`; never logged. */
  key: string;
  /** Deadline of one call to the acquirer, retry included. */
  timeoutMs: number;
}

export const DEFAULT_LIVE_TIMEOUT_MS = 15_000;
/**
 * Kept under the reconciler's one-minute age (domain/payments/reconcile.ts), so that a
 * lookup never asks about an attempt whose authorization call is still running.
 */
export const MAX_LIVE_TIMEOUT_MS = 30_000;
export const MAX_LIVE_KEY_LENGTH = 1024;

/** Visible ASCII only: the key goes into an HTTP header as it is. */
const KEY_SHAPE = /^[\x21-\x7e]+$/;

/**
 * Reads OBOLUS_LIVE_CONNECTOR_*. No URL means no live connector (live payments are
 * refused); an empty variable counts as unset. Errors name the variable and never echo the key.
 */
export function parseLiveConnectorConfig(env: NodeJS.ProcessEnv): LiveConnectorConfig | null {
  const rawUrl = env.OBOLUS_LIVE_CONNECTOR_URL ?? '';
  const key = env.OBOLUS_LIVE_CONNECTOR_KEY ?? '';
  if (rawUrl === '') {
    if (key !== '') throw new Error('OBOLUS_LIVE_CONNECTOR_KEY is set but OBOLUS_LIVE_CONNECTOR_URL is not');
    return null;
  }
  const url = parseUrl(rawUrl, env.OBOLUS_LIVE_CONNECTOR_ALLOW_HTTP === 'true');
  if (key === '') throw new Error('OBOLUS_LIVE_CONNECTOR_KEY is required when OBOLUS_LIVE_CONNECTOR_URL is set');
  if (key.length > MAX_LIVE_KEY_LENGTH || !KEY_SHAPE.test(key)) {
    throw new Error(
      `OBOLUS_LIVE_CONNECTOR_KEY must be 1 to ${MAX_LIVE_KEY_LENGTH} visible ASCII characters without spaces`,
    );
  }
  const timeoutMs = parseTimeout(env.OBOLUS_LIVE_CONNECTOR_TIMEOUT_MS || String(DEFAULT_LIVE_TIMEOUT_MS));
  return { url, key, timeoutMs };
}

function parseUrl(text: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('OBOLUS_LIVE_CONNECTOR_URL must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    throw new Error(
      'OBOLUS_LIVE_CONNECTOR_URL must use https:// (http:// only with OBOLUS_LIVE_CONNECTOR_ALLOW_HTTP=true, for development)',
    );
  }
  // Credentials belong in the key, where they are never logged; a query would be dropped.
  if (url.username || url.password || url.search || url.hash) {
    throw new Error('OBOLUS_LIVE_CONNECTOR_URL must not carry credentials, a query or a fragment');
  }
  return url;
}

function parseTimeout(text: string): number {
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms < 1 || ms > MAX_LIVE_TIMEOUT_MS) {
    throw new Error(`OBOLUS_LIVE_CONNECTOR_TIMEOUT_MS must be 1..${MAX_LIVE_TIMEOUT_MS} milliseconds, got '${text}'`);
  }
  return ms;
}
