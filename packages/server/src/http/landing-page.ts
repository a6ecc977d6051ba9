import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { contentSecurityPolicy, sendPage, styleHash } from './checkout/page-security.ts';
import { escapeHtml } from './html.ts';

/** What `GET /` points a developer at; one line each, extended as surfaces are added. */
export function landingLinks(baseUrl: string, appUrl: string): Array<{ label: string; href: string; about: string }> {
  return [
    { label: 'Dashboard', href: `${appUrl}/dashboard`, about: 'your account, keys, payments and webhooks' },
    { label: 'API reference', href: `${baseUrl}/docs`, about: 'every endpoint, with its OpenAPI document' },
    { label: 'Health', href: `${baseUrl}/healthz`, about: 'liveness; /readyz checks the database too' },
  ];
}

const GUIDES = [
  ['README.md', 'quick start and a five-minute integration'],
  ['docs/checkout.md', 'the widget, its loader, allowed origins, products and the hosted page'],
  ['docs/webhooks.md', 'events, signatures, retries and obolus listen'],
  ['docs/test-cards.md', 'sandbox card numbers and what each does'],
  ['docs/api-contract.md', 'the contract the service implements'],
];

const CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1f36;background:#fff}
h1{font-size:1.6rem;margin:0 0 .25rem}p{margin:.25rem 0 1rem}ul{padding-left:1.2rem}li{margin:.35rem 0}
a{color:#4f46e5}code{font:.9em ui-monospace,monospace}
@media (prefers-color-scheme:dark){body{color:#e6e8f0;background:#0f1117}a{color:#a5b4fc}}`;

export function landingHtml(baseUrl: string, appUrl: string): string {
  const links = landingLinks(baseUrl, appUrl)
    .map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.label)}</a>: ${escapeHtml(l.about)}</li>`)
    .join('');
  const guides = GUIDES.map(([file, about]) => `<li><code>${file}</code>: ${about}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Obolus</title><style>${CSS}</style></head><body>
<h1>Obolus is running</h1>
<p>A self-hostable card-payment service. Your server creates payment intents at
<code>${escapeHtml(baseUrl)}/api/v1/payment-intents</code> with its secret key; shoppers pay in the widget or on a hosted page.</p>
<ul>${links}</ul>
<h2>Guides, in the repository</h2>
<ul>${guides}</ul>
</body></html>`;
}

/** `GET /`: where a developer lands after `npm start`. */
export function registerLandingPage(app: FastifyInstance, services: Services): void {
  const { baseUrl, appUrl } = services.config;
  const html = landingHtml(baseUrl, appUrl);
  const csp = contentSecurityPolicy({ styleHashes: [styleHash(CSS)], frameAncestors: [] });
  app.get('/', async (_request, reply) => sendPage(reply, 200, csp, html));
}
