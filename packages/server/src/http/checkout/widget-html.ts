import { escapeHtml } from '../html.ts';
import { styleHash } from './page-security.ts';

/**
 * The widget page. The form is in the HTML so it paints before any script runs; its
 * inputs stay disabled until the host's obolus:init has arrived, and carry no `name`, so
 * even a form submitted without script (which CSP form-action forbids anyway) sends nothing.
 */

export const WIDGET_CSS = `
:root{--bg:#fff;--fg:#1b1f2a;--muted:#5b6475;--line:#8a93a6;--field:#fff;--accent:#3346c9;--on-accent:#fff;--bad:#b3261e;--good:#1e7b34;--radius:8px;--font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
[data-theme=dark]{--bg:#171a23;--fg:#eceef4;--muted:#a9b0c0;--line:#6e778b;--field:#1f2230;--accent:#9aa8ff;--on-accent:#0b0d14;--bad:#ff8a80;--good:#7ddc8f}
*{box-sizing:border-box}
html,body{margin:0;background:transparent;color:var(--fg);font:15px/1.4 var(--font)}
html[data-standalone]{background:var(--bg)}
main{padding:12px;max-width:560px;margin:0;min-width:0;background:var(--bg);border-radius:var(--radius)}
[data-summary=off] .summary{display:none}
h2{font-size:17px;margin:0 0 8px}
.summary{margin:0 0 14px}
.merchant{font-weight:600;margin:0}
.amount{font-size:26px;font-weight:700;margin:2px 0;min-height:1.2em}
.desc{color:var(--muted);margin:0}
.badge{display:inline-block;font-size:12px;font-weight:600;border:1px solid var(--line);border-radius:999px;padding:1px 8px;color:var(--muted)}
.field{margin:0 0 12px;min-width:0}
label{display:block;font-weight:600;margin:0 0 4px}
.control{position:relative}
input{font:inherit;width:100%;min-height:44px;padding:10px 12px;border:1px solid var(--line);border-radius:var(--radius);background:var(--field);color:var(--fg);outline:none}
input::placeholder{color:var(--muted);opacity:.8}
input:focus-visible{border-color:var(--accent);box-shadow:0 0 0 3px color-mix(in srgb,var(--accent) 40%,transparent)}
input[aria-invalid=true]{border-color:var(--bad);box-shadow:inset 0 0 0 1px var(--bad)}
input[aria-invalid=true]:focus-visible{box-shadow:inset 0 0 0 1px var(--bad),0 0 0 3px color-mix(in srgb,var(--bad) 30%,transparent)}
#number{padding-right:92px}
.brand{position:absolute;right:8px;top:50%;transform:translateY(-50%);font:700 11px/1 system-ui,sans-serif;padding:4px 6px;border-radius:4px;color:#fff;background:#5b6475;max-width:84px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.brand[data-brand=""]{display:none}
.brand[data-brand=visa]{background:#1a1f71}
.brand[data-brand=mastercard]{background:#c2410c}
.brand[data-brand=amex]{background:#0f6cb5}
.brand[data-brand=discover]{background:#b45309}
.row{display:grid;grid-template-columns:1fr 1fr;column-gap:12px}
.row>.field{display:grid;grid-row:span 3;grid-template-rows:subgrid;row-gap:0}
.row>.field>label{align-self:end}
.error{color:var(--bad);font-size:13px;margin:4px 0 0}
.error:empty,.alert:empty{display:none}
.alert{border:1px solid var(--bad);color:var(--bad);border-radius:var(--radius);padding:8px 12px;margin:0 0 12px}
button{font:inherit;font-weight:600;width:100%;min-height:44px;border:0;border-radius:var(--radius);background:var(--accent);color:var(--on-accent);cursor:pointer}
button:disabled{opacity:.65;cursor:not-allowed}
button[aria-busy=true]{cursor:progress}
button:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
[tabindex="-1"]:focus{outline:none}
.note{color:var(--muted);font-size:12px;text-align:center;margin:10px 0 0}
.challenge iframe{display:block;width:100%;height:260px;border:1px solid var(--line);border-radius:var(--radius);background:#fff}
.done{text-align:center;padding:16px 0}
.tick{font-size:34px;line-height:1;color:var(--good);margin:0 0 8px}
.paid{font-size:22px;font-weight:700;margin:4px 0}
.ids{font-size:13px;margin:8px 0 0}.ids>div{margin:4px 0}.ids dt{color:var(--muted)}.ids dd{margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere}.ids [hidden]{display:none}
.nw{white-space:nowrap}
[hidden]{display:none!important}
`;

export interface WidgetPageConfig {
  pk: string;
  mode: 'live' | 'sandbox' | null;
  theme: 'light' | 'dark' | null;
  origin: string | null;
  allowedOrigins: string[] | null;
}

/** JSON inside a <script> element: `<` is escaped so no value can close the element. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** `summary: false` hides the merchant and amount the host shows itself; `themed` is the appearance CSS. */
export function widgetHtml(
  config: WidgetPageConfig,
  scriptPath: string,
  look: { summary: boolean; themed: string } = { summary: true, themed: '' },
): string {
  const summary = look.summary ? '' : ' data-summary="off"';
  const themed = look.themed ? `<style>${look.themed}</style>` : '';
  return `<!doctype html>
<html lang="en" data-theme="${config.theme ?? 'light'}"${summary}><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>Card payment</title>
<style>${WIDGET_CSS}</style>${themed}
<script type="module" src="${escapeHtml(scriptPath)}"></script>
<script type="application/json" id="obolus-config">${scriptJson(config)}</script>
</head><body><main id="app" aria-busy="true">
<section class="summary" aria-label="Payment">
<p class="merchant" id="merchant"></p><p class="amount" id="amount"></p>
<p class="desc" id="desc"></p><p><span class="badge" id="mode-badge" hidden>Test payment</span></p>
</section>
<div class="alert" id="alert" role="alert"></div>
<form id="pay-form" novalidate autocomplete="on">
<div class="field"><label for="number">Card number</label>
<div class="control"><input id="number" type="text" autocomplete="cc-number" inputmode="numeric" autocorrect="off" spellcheck="false" placeholder="1234 1234 1234 1234" maxlength="23" aria-describedby="number-error" aria-invalid="false" disabled>
<span class="brand" id="brand" data-brand="" role="img" aria-label=""></span></div>
<p class="error" id="number-error" aria-live="polite"></p></div>
<div class="row">
<div class="field"><label for="exp">Expiry date <span class="nw">(MM / YY)</span></label>
<input id="exp" type="text" autocomplete="cc-exp" inputmode="numeric" placeholder="MM / YY" maxlength="7" aria-describedby="exp-error" aria-invalid="false" disabled>
<p class="error" id="exp-error" aria-live="polite"></p></div>
<div class="field"><label for="cvc">Security code</label>
<input id="cvc" type="text" autocomplete="cc-csc" inputmode="numeric" placeholder="CVC" maxlength="4" aria-describedby="cvc-error" aria-invalid="false" disabled>
<p class="error" id="cvc-error" aria-live="polite"></p></div>
</div>
<div class="field"><label for="name">Name on card</label>
<input id="name" type="text" autocomplete="cc-name" autocapitalize="words" spellcheck="false" maxlength="100" aria-describedby="name-error" aria-invalid="false" disabled>
<p class="error" id="name-error" aria-live="polite"></p></div>
<button type="submit" id="pay" disabled>Pay</button>
<p class="note">Your card details are encrypted before they leave this form.</p>
</form>
<section class="challenge" id="challenge" hidden>
<h2 id="challenge-title" tabindex="-1">Confirm with your bank</h2>
<div id="challenge-slot"></div></section>
<section class="done" id="done" role="status" hidden>
<p class="tick" aria-hidden="true">✓</p><h2 id="done-title" tabindex="-1">Payment successful</h2>
<p class="paid" id="done-amount" hidden></p><p id="done-detail"></p>
<dl class="ids" id="done-ids" hidden><div id="done-order-row"><dt>Order reference</dt><dd id="done-order"></dd></div>
<div id="done-transaction-row"><dt>Transaction ID</dt><dd id="done-transaction"></dd></div></dl></section>
<section id="notice" role="alert" hidden><p class="alert" id="notice-text"></p></section>
<noscript><p class="alert">This payment form needs JavaScript.</p></noscript>
</main></body></html>`;
}

export const WIDGET_STYLE_HASH = styleHash(WIDGET_CSS);
