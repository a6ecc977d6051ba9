import type { Account } from '../../domain/accounts.ts';
import type { Product } from '../../domain/products.ts';
import { formatMoney } from '../../money.ts';
import { escapeHtml } from '../html.ts';
import { styleHash } from './page-security.ts';
import { scriptJson } from './widget-html.ts';

/** The hosted checkout page of one product: what is sold, for how much, and the widget to pay. */

const CSS = `
:root{--bg:#f5f6fa;--panel:#fff;--fg:#1b1f2a;--muted:#5b6475;--line:#d6d9e2;--good:#1e7b34;color-scheme:light}
@media (prefers-color-scheme:dark){:root{--bg:#0e1016;--panel:#14161d;--fg:#eceef4;--muted:#a9b0c0;--line:#2a2e3b;--good:#7ddc8f;color-scheme:dark}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:960px;margin:0 auto;padding:24px 16px;display:grid;gap:24px;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));align-items:start}
.merchant{font-weight:600;color:var(--muted);margin:0 0 16px}
h1{font-size:24px;margin:0 0 8px}
.price{font-size:28px;font-weight:700;margin:8px 0}
.desc{color:var(--muted);margin:0}
.badge{display:inline-block;font-size:12px;font-weight:600;border:1px solid var(--line);border-radius:999px;padding:1px 8px;color:var(--muted)}
.pay{background:var(--panel);border:1px solid var(--line);border-radius:12px;padding:12px;min-width:0}
.problem{color:#b3261e}
.problem:empty{display:none}
.thanks{text-align:center;padding:24px 8px}
.tick{font-size:40px;line-height:1;color:var(--good);margin:0}
.receipt{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;text-align:left;max-width:360px;margin:16px auto}
.receipt dt{color:var(--muted)} .receipt dd{margin:0;overflow-wrap:anywhere}
.receipt .id{font-family:ui-monospace,monospace;font-size:14px}
@media (max-width:480px){.receipt{grid-template-columns:1fr;gap:0}.receipt dd{margin:0 0 8px}}
.again{font:inherit;min-height:44px;padding:8px 16px;border-radius:8px;border:1px solid var(--line);background:var(--panel);color:var(--fg);cursor:pointer}
:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
[tabindex="-1"]:focus{outline:none}
[hidden]{display:none!important}
`;
export const HOSTED_STYLE_HASH = styleHash(CSS);

export interface HostedPageConfig {
  pk: string;
  productId: string;
  mode: 'live' | 'sandbox';
  successUrl: string | null;
}

export function hostedHtml(product: Product, account: Account, config: HostedPageConfig, scriptPath: string): string {
  const price = escapeHtml(formatMoney(product.amount, product.currency));
  const description = product.description ? `<p class="desc">${escapeHtml(product.description)}</p>` : '';
  const sandbox = product.mode === 'sandbox' ? '<p><span class="badge">Test mode: no money moves</span></p>' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(product.name)} · ${escapeHtml(account.name)}</title><style>${CSS}</style>
<script type="module" src="${escapeHtml(scriptPath)}"></script>
<script type="application/json" id="checkout-config">${scriptJson(config)}</script>
</head><body><main>
<section aria-labelledby="product-name"><p class="merchant">${escapeHtml(account.name)}</p>
<h1 id="product-name">${escapeHtml(product.name)}</h1>${description}
<p class="price" id="price">${price}</p>${sandbox}</section>
<section class="pay" aria-label="Payment">
<div id="checkout"><div id="widget"></div><p class="problem" id="problem" role="alert"></p></div>
<div class="thanks" id="thanks" role="status" hidden><p class="tick" aria-hidden="true">✓</p>
<h2 id="thanks-title" tabindex="-1">Thank you for your purchase</h2>
<p>${escapeHtml(account.name)} has received your payment of <span id="thanks-amount">${price}</span>.</p>
<p id="thanks-next"></p>
<div id="receipt" hidden><p>This order is paid: nothing more will be charged.</p>
<dl class="receipt"><dt>Amount</dt><dd id="receipt-amount"></dd><dt>Payment ID</dt><dd class="id" id="receipt-payment"></dd>
<dt>Transaction ID</dt><dd class="id" id="receipt-transaction"></dd></dl>
<p><a id="receipt-back" hidden>Back to the shop</a></p>
<p><button type="button" class="again" id="again">Buy again</button></p></div></div>
</section></main></body></html>`;
}
