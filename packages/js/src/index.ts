/**
 * @obolus/js: mounts the Obolus checkout widget in an iframe and speaks its postMessage
 * protocol (docs/widget-protocol.md) for the host page. Every message is checked for both
 * origin and source; nothing is ever posted with target '*'. The card never passes through
 * here: it is typed into, and encrypted by, the widget's own frame.
 */

export type Mode = 'live' | 'sandbox';
export type Theme = 'light' | 'dark';

export interface ObolusOptions {
  /** Where Obolus runs, e.g. https://pay.example.com. Defaults to where this script was loaded from. */
  baseUrl?: string;
}

import { CLIENT_KEY, CLIENT_SECRET, type InitMessage, MESSAGE, type ObolusResult } from './protocol.ts';

export type { ObolusResult } from './protocol.ts';

/**
 * The widget's look, like Stripe's Appearance API. Colours are hex (`#3346c9`; the
 * background may also be `transparent`; by default each theme has its own surface), `borderRadius` 0px to 24px,
 * `fontFamily` a font list. Obolus checks every value; a wrong one is refused by name.
 */
export interface Appearance {
  variables?: {
    colorPrimary?: string;
    colorBackground?: string;
    colorText?: string;
    colorDanger?: string;
    borderRadius?: string;
    fontFamily?: string;
  };
}

const APPEARANCE_VARIABLES = [
  'colorPrimary',
  'colorBackground',
  'colorText',
  'colorDanger',
  'borderRadius',
  'fontFamily',
];

export interface MountOptions {
  /** The intent's client_secret, from your server, for this shopper only. */
  clientSecret: string;
  /** The mode you expect; an intent of the other mode is refused with `mode_mismatch`. */
  mode?: Mode;
  theme?: Theme;
  appearance?: Appearance;
  /** false: hide the merchant, amount and test badge at the top, for pages that show them already. */
  summary?: boolean;
  onReady?: () => void;
  onResult?: (result: ObolusResult) => void;
}

export interface MountedWidget {
  readonly iframe: HTMLIFrameElement;
  /** Removes the iframe and stops listening. */
  unmount(): void;
}

export interface ObolusInstance {
  mount(target: Element | string, options: MountOptions): MountedWidget;
}

/** The served file's own address lets a page load it and pass no baseUrl. */
const SERVED_PATH = /\/js\/v1\/obolus\.js$/;
const INITIAL_HEIGHT = 420;
const MAX_HEIGHT = 4000;
/**
 * How long after the frame has loaded its handshake may take. A widget refused by the
 * account's allowed origins never answers: the browser blocks the frame (CSP
 * frame-ancestors) or the widget stays silent towards a parent it may not talk to.
 */
export const READY_GRACE_MS = 2500;

export function Obolus(clientKey: string, options: ObolusOptions = {}): ObolusInstance {
  if (!CLIENT_KEY.test(clientKey)) throw new TypeError('Obolus: the client key must look like pk_…');
  const widgetOrigin = resolveOrigin(options.baseUrl);
  return {
    mount: (target, mountOptions) => mount(clientKey, widgetOrigin, target, mountOptions),
  };
}

function resolveOrigin(baseUrl: string | undefined): string {
  const here = new URL(import.meta.url);
  const url = baseUrl ?? (SERVED_PATH.test(here.pathname) ? here.origin : undefined);
  if (!url) throw new TypeError('Obolus: pass { baseUrl } (the address of your Obolus service).');
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TypeError('Obolus: baseUrl must be an http(s) URL.');
  }
  return parsed.origin;
}

function element(target: Element | string): Element {
  const found = typeof target === 'string' ? document.querySelector(target) : target;
  if (!found) throw new TypeError(`Obolus: no element matches ${String(target)}`);
  return found;
}

function mount(clientKey: string, widgetOrigin: string, target: Element | string, options: MountOptions) {
  if (!CLIENT_SECRET.test(options.clientSecret)) {
    throw new TypeError('Obolus: clientSecret must be the intent’s client_secret (pi_…_secret_…).');
  }
  const container = element(target);
  const src = new URL('/embed', widgetOrigin);
  src.searchParams.set('pk', clientKey);
  if (options.mode) src.searchParams.set('mode', options.mode);
  if (options.theme) src.searchParams.set('theme', options.theme);
  if (options.summary === false) src.searchParams.set('summary', 'off');
  const variables = appearanceVariables(options.appearance);
  if (variables) src.searchParams.set('appearance', JSON.stringify(variables));
  // Only a fallback for browsers without location.ancestorOrigins; opaque origins ('null') have none to give.
  if (location.origin !== 'null') src.searchParams.set('origin', location.origin);

  const iframe = document.createElement('iframe');
  iframe.src = src.href;
  iframe.title = 'Secure card payment';
  iframe.style.cssText = `display:block;width:100%;min-width:280px;border:0;height:${INITIAL_HEIGHT}px;color-scheme:normal`;

  const onMessage = (event: MessageEvent) => {
    if (event.source !== iframe.contentWindow || event.origin !== widgetOrigin) return;
    handle(event.data);
  };
  const handle = (data: unknown) => {
    if (typeof data !== 'object' || data === null) return;
    const message = data as Record<string, unknown>;
    if (message.type === MESSAGE.ready) {
      markReady();
      const init: InitMessage = { type: MESSAGE.init, client_secret: options.clientSecret };
      iframe.contentWindow?.postMessage(init, widgetOrigin);
      options.onReady?.();
    } else if (message.type === MESSAGE.resize) {
      const height = message.height;
      if (typeof height === 'number' && Number.isFinite(height) && height > 0 && height <= MAX_HEIGHT) {
        iframe.style.height = `${Math.ceil(height)}px`;
      }
    } else if (message.type === MESSAGE.result) {
      const result = toResult(message);
      if (result) options.onResult?.(result);
    }
  };

  let ready = false;
  let refusalTimer: ReturnType<typeof setTimeout> | undefined;
  const refuse = () => {
    if (ready) return;
    window.removeEventListener('message', onMessage);
    iframe.style.display = 'none'; // not the browser's broken-frame picture
    console.error(
      `Obolus: the checkout widget may not be shown on ${location.origin}: it is not among the account's ` +
        `allowed origins. Add it with \`npx obolus origins set <account-id> <origin>…\` (list every origin).`,
    );
    options.onResult?.({
      success: false,
      payment_intent: null,
      status: null,
      error: {
        type: 'invalid_request',
        code: 'origin_not_allowed',
        message: `This page (${location.origin}) may not show the checkout widget of this account.`,
      },
    });
  };
  /** No handshake: ask Obolus whether this page may frame the widget at all (an error page stays visible). */
  const checkFraming = async () => {
    if (ready) return;
    const check = new URL('/embed/v1/frame-check', widgetOrigin);
    check.searchParams.set('pk', clientKey);
    try {
      const answer = (await (await fetch(check)).json()) as { framing?: string };
      if (answer.framing === 'origin_not_allowed') refuse();
    } catch {
      // Obolus unreachable: the frame shows the browser's own error.
    }
  };
  iframe.addEventListener('load', () => {
    clearTimeout(refusalTimer);
    if (!ready) refusalTimer = setTimeout(checkFraming, READY_GRACE_MS);
  });
  const markReady = () => {
    ready = true;
    clearTimeout(refusalTimer);
  };

  window.addEventListener('message', onMessage);
  container.appendChild(iframe);
  return {
    iframe,
    unmount() {
      clearTimeout(refusalTimer);
      window.removeEventListener('message', onMessage);
      iframe.remove();
    },
  };
}

/** Only the names are checked here; Obolus checks the values and names the one it refuses. */
function appearanceVariables(appearance: Appearance | undefined): Record<string, string> | null {
  const variables = appearance?.variables;
  if (!variables) return null;
  for (const [name, value] of Object.entries(variables)) {
    if (!APPEARANCE_VARIABLES.includes(name) || typeof value !== 'string') {
      throw new TypeError(
        `Obolus: appearance.variables.${name} is not one of ${APPEARANCE_VARIABLES.join(', ')} (strings).`,
      );
    }
  }
  return Object.keys(variables).length ? (variables as Record<string, string>) : null;
}

const optionalString = (value: unknown) => (typeof value === 'string' ? value : null);

/** A result as the widget sent it, copied field by field so nothing unexpected reaches the page. */
function toResult(message: Record<string, unknown>): ObolusResult | null {
  if (typeof message.success !== 'boolean') return null;
  const result: ObolusResult = {
    success: message.success,
    payment_intent: optionalString(message.payment_intent),
    status: optionalString(message.status),
  };
  if (typeof message.transaction_id === 'string') result.transaction_id = message.transaction_id;
  const error = message.error as Record<string, unknown> | undefined;
  if (error && typeof error === 'object') {
    result.error = {
      type: String(error.type ?? ''),
      code: String(error.code ?? ''),
      message: String(error.message ?? ''),
    };
  }
  return result;
}
