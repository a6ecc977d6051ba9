import { MESSAGE } from '@obolus/js/protocol';
import { SANDBOX_3DS_CODE } from '../../connectors/sandbox/sandbox.ts';
import type { ChallengeView } from '../../domain/payments/challenge.ts';
import { formatMoney } from '../../money.ts';
import { cspNonce, escapeHtml } from '../html.ts';

/**
 * The simulated issuer page. It submits to its own URL and hands the outcome to the
 * widget that framed it (same origin), never to anyone else.
 */
export function challengePage(view: ChallengeView): { html: string; csp: string } {
  const nonce = cspNonce();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    // Every ancestor must match: the widget (our origin) and the merchant page that frames
    // it. An account without allowed origins lets any page frame its widget, so this too.
    `frame-ancestors ${view.allowedOrigins.length ? ["'self'", ...view.allowedOrigins].join(' ') : '*'}`,
  ].join('; ');
  const amount = escapeHtml(formatMoney(view.amount, view.currency));
  const body = view.open
    ? `<p>Confirm a payment of <strong>${amount}</strong> to <strong>${escapeHtml(view.merchantName)}</strong>
  with ${escapeHtml(view.brand)} ending in ${escapeHtml(view.last4)}.</p>
  <p class="hint">Sandbox: the one-time code is <strong>${SANDBOX_3DS_CODE}</strong>. Any other code fails.</p>
  <form id="challenge">
    <label for="code">One-time code</label>
    <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required>
    <div class="actions"><button type="submit" id="submit">Confirm</button>
    <button type="button" id="cancel" class="secondary">Cancel</button></div>
  </form>`
    : '<p>This authentication has already been completed.</p>';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Obolus Test Bank · 3-D Secure</title>
<style nonce="${nonce}">
  body{font:15px/1.45 system-ui,sans-serif;margin:0;padding:16px;color:#1a1a2e;background:#fff}
  h1{font-size:17px;margin:0 0 8px} .hint{color:#555;font-size:13px}
  label{display:block;font-weight:600;margin:12px 0 4px}
  input{font:inherit;padding:8px;width:100%;max-width:12em;box-sizing:border-box;border:1px solid #888;border-radius:6px}
  .actions{margin-top:12px;display:flex;gap:8px}
  button{font:inherit;padding:8px 14px;border-radius:6px;border:1px solid #2d3a8c;background:#2d3a8c;color:#fff;cursor:pointer}
  button.secondary{background:#fff;color:#2d3a8c} button:disabled{opacity:.6}
  :focus-visible{outline:3px solid #f0a500;outline-offset:2px}
</style></head>
<body><main><h1>Obolus Test Bank</h1>${body}<p id="status" role="status" aria-live="polite"></p></main>
<script nonce="${nonce}">
(() => {
  const form = document.getElementById('challenge');
  if (!form) return;
  const status = document.getElementById('status');
  const buttons = form.querySelectorAll('button');
  const send = async (answer) => {
    buttons.forEach((b) => { b.disabled = true; });
    status.textContent = 'Checking…';
    try {
      const res = await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) });
      const outcome = await res.json();
      status.textContent = outcome.success ? 'Authenticated.' : 'Authentication ended.';
      if (window.parent !== window) window.parent.postMessage({ type: ${JSON.stringify(MESSAGE.challengeComplete)}, outcome }, location.origin);
    } catch {
      status.textContent = 'Something went wrong. Try again.';
      buttons.forEach((b) => { b.disabled = false; });
    }
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); send({ code: form.code.value }); });
  document.getElementById('cancel').addEventListener('click', () => send({ cancel: true }));
  form.code.focus();
})();
</script></body></html>`;
  return { html, csp };
}
