import { invalidParam } from '../errors.ts';
import type { Mode } from '../intents.ts';
import { forbiddenReason, isLoopbackName, unbracket } from './address-policy.ts';

export const URL_MAX_LENGTH = 2048;

/**
 * Checks a webhook URL when it is saved, so the merchant hears of a mistake at once. This is
 * only the early half: names are resolved, and every address checked, when a delivery
 * connects (workers/webhooks/transport.ts), because DNS can answer differently later.
 */
export function checkEndpointUrl(text: string, mode: Mode, allowLoopback: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidParam('url', 'url must be an absolute URL such as https://shop.example/webhooks.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidParam('url', 'url must start with https:// (or http:// for a sandbox endpoint).');
  }
  if (url.protocol === 'http:' && mode === 'live') {
    throw invalidParam('url', 'A live endpoint needs an https:// url; http:// is allowed for sandbox endpoints only.');
  }
  if (url.username || url.password) {
    throw invalidParam('url', 'url must not carry a user name or password; authenticate by the webhook signature.');
  }
  const host = unbracket(url.hostname);
  const reason = isLoopbackName(host) ? (allowLoopback ? null : 'loopback') : literalReason(host, allowLoopback);
  if (reason !== null) {
    throw invalidParam('url', `url must point at a public address; ${host} is ${reason}.`);
  }
  return url.toString();
}

/** Only IP literals can be judged without DNS; names pass here and are checked at connect time. */
function literalReason(host: string, allowLoopback: boolean): string | null {
  const reason = forbiddenReason(host, allowLoopback);
  return reason === 'not an IP address' ? null : reason;
}
