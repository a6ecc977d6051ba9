/**
 * The widget's side of the postMessage protocol (docs/widget-protocol.md). It talks to one
 * window, its parent, at one origin, found before anything is sent; it never uses '*'.
 * The client_secret arrives here and is only ever sent to the Obolus API.
 */
import { CLIENT_SECRET, MESSAGE, type ObolusResult, type WidgetMessage } from '@obolus/js/protocol';

export interface WidgetConfig {
  pk: string;
  /** The mode the merchant mounted the widget with; null: take the intent's. */
  mode: 'live' | 'sandbox' | null;
  theme: 'light' | 'dark' | null;
  /** The `origin` query parameter the loader adds: the last resort for the parent's origin. */
  origin: string | null;
  /** The account's allowed origins; null when any page may embed the widget. */
  allowedOrigins: string[] | null;
}

/** The outcome the widget posts as `obolus:result`. */
export type ResultMessage = ObolusResult;

export interface HostLink {
  resize(height: number): void;
  result(result: ResultMessage): void;
}

export type HostRefusal = 'standalone' | 'origin-unknown' | 'origin-not-allowed';

/** The parent's origin, most trustworthy source first. */
export function parentOrigin(config: WidgetConfig): string | null {
  const ancestors = location.ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[0] ?? null;
  if (document.referrer) {
    try {
      return new URL(document.referrer).origin;
    } catch {
      // fall through to the loader's parameter
    }
  }
  return config.origin;
}

function initSecret(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const message = data as { type?: unknown; client_secret?: unknown };
  if (message.type !== MESSAGE.init || typeof message.client_secret !== 'string') return null;
  return CLIENT_SECRET.test(message.client_secret) ? message.client_secret : null;
}

/**
 * Announces the widget to its parent and waits for obolus:init from that window and
 * origin only (a sibling frame or a popup on another origin is never heard). Returns why
 * it cannot, when it cannot.
 */
export function connectHost(
  config: WidgetConfig,
  onInit: (clientSecret: string, link: HostLink) => void,
): { refusal: HostRefusal } | { link: HostLink } {
  const parent = window.parent;
  if (parent === window) return { refusal: 'standalone' };
  const origin = parentOrigin(config);
  if (!origin || origin === 'null') return { refusal: 'origin-unknown' };
  const allowed = config.allowedOrigins;
  if (allowed && origin !== location.origin && !allowed.includes(origin)) return { refusal: 'origin-not-allowed' };

  const send = (message: WidgetMessage) => parent.postMessage(message, origin);
  let lastHeight = -1;
  const link: HostLink = {
    resize(height) {
      if (height === lastHeight) return;
      lastHeight = height;
      send({ type: MESSAGE.resize, height });
    },
    result: (result) => send({ type: MESSAGE.result, ...result }),
  };
  let initialised = false;
  window.addEventListener('message', (event) => {
    if (initialised || event.source !== parent || event.origin !== origin) return;
    const secret = initSecret(event.data);
    if (secret === null) return;
    initialised = true;
    onInit(secret, link);
  });
  send({ type: MESSAGE.ready });
  return { link };
}
