import { type ChallengeCompleteMessage, MESSAGE } from '@obolus/js/protocol';
import type { ChallengeView } from '../../domain/payments/challenge.ts';
import { formatMoney } from '../../money.ts';
import { cspNonce, escapeHtml } from '../html.ts';
import type { PaymentOutcomeOut } from './outcome-schema.ts';

/**
 * A live 3-D Secure challenge (decision 0103). The widget frames our own challenge page,
 * as in the sandbox; that page frames the issuer's page (reached through the acquirer's
 * redirect), which sends the shopper back to our return address; the return page hands
 * the outcome up, and this page relays it to the widget. Only messages from that inner
 * frame, on our own origin, are relayed.
 */
export function liveChallengePage(view: ChallengeView & { redirectUrl: string }): { html: string; csp: string } {
  const nonce = cspNonce();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `frame-src ${["'self'", ...view.frameSources].join(' ')}`,
    "base-uri 'none'",
  ].join('; ');
  const amount = escapeHtml(formatMoney(view.amount, view.currency));
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>3-D Secure</title>
<style nonce="${nonce}">
  html,body{margin:0;height:100%} body{font:14px/1.4 system-ui,sans-serif;display:flex;flex-direction:column}
  p{margin:8px 12px;color:#444} iframe{flex:1;border:0;width:100%;min-height:400px}
</style></head>
<body><p>Confirm ${amount} with your bank (${escapeHtml(view.brand)} ending in ${escapeHtml(view.last4)}).</p>
<iframe id="issuer" title="Your bank's 3-D Secure page" src="${escapeHtml(view.redirectUrl)}"></iframe>
<script nonce="${nonce}">
(() => {
  const inner = document.getElementById('issuer');
  window.addEventListener('message', (event) => {
    if (event.origin !== location.origin || event.source !== inner.contentWindow) return;
    if (event.data?.type !== ${JSON.stringify(MESSAGE.challengeComplete)}) return;
    if (window.parent !== window) window.parent.postMessage(event.data, location.origin);
  });
})();
</script></body></html>`;
  return { html, csp };
}

/** Where the issuer's page sends the shopper back: hands the attempt's outcome to the challenge page. */
export function challengeReturnPage(outcome: PaymentOutcomeOut): { html: string; csp: string } {
  const nonce = cspNonce();
  const csp = ["default-src 'none'", `script-src 'nonce-${nonce}'`, "base-uri 'none'"].join('; ');
  // JSON inside a script: "<" escaped so that no value can close the element.
  const message: ChallengeCompleteMessage<PaymentOutcomeOut> = { type: MESSAGE.challengeComplete, outcome };
  const data = JSON.stringify(message).replace(/</g, '\\u003c');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authentication finished</title></head>
<body><p>Authentication finished. You can return to the payment.</p>
<script nonce="${nonce}">
if (window.parent !== window) window.parent.postMessage(${data}, location.origin);
</script></body></html>`;
  return { html, csp };
}
