/** The page around Swagger UI: no inline script or style, so the CSP needs neither. */
export const REFERENCE_HTML = (documentPath: string, publishedPath: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Obolus API reference</title>
<link rel="icon" href="/docs/assets/favicon.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/reference.css">
<script src="/docs/assets/swagger-ui-bundle.js" defer></script>
<script src="/docs/assets/reference.js" defer></script>
</head>
<body>
<main id="reference" data-document="${documentPath}"><p class="loading">Loading the API reference…</p></main>
<noscript><p>The reference needs JavaScript. The document itself: <a href="${publishedPath}">${publishedPath}</a>; the <a href="/docs/errors">error codes</a>.</p></noscript>
</body>
</html>
`;

/**
 * Starts Swagger UI on the document; no validator badge (it would call validator.swagger.io).
 * Deep links off: they put a link inside each operation's toggle button (nested controls);
 * no syntax colouring (its colours fail contrast). What Swagger UI renders without a name
 * (the servers list, scrollable examples) is named or made focusable as it appears.
 */
export const REFERENCE_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('reference');
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.document,
    domNode: root,
    deepLinking: false,
    validatorUrl: null,
    tryItOutEnabled: false,
    syntaxHighlight: { activated: false },
    defaultModelsExpandDepth: 0,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
  function label() {
    var servers = root.querySelector('select#servers');
    if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
    root.querySelectorAll('pre:not([tabindex]), .highlight-code > .microlight:not([tabindex])').forEach(function (block) {
      block.setAttribute('tabindex', '0');
    });
  }
  new MutationObserver(label).observe(root, { childList: true, subtree: true });
})();
`;

/**
 * Swagger UI's colours where they fail 4.5:1 (method badges, version badges, links, the
 * Authorize button), narrow screens (tag descriptions under their heading, paths that wrap
 * between words), and the dark theme: Swagger UI has none, so the page is inverted whole
 * (a full inversion keeps each contrast close to the light page's), images turned back.
 */
export const REFERENCE_CSS = `body { margin: 0; background: #fff; }
.loading { font: 16px system-ui, sans-serif; padding: 2rem; }
.swagger-ui .info .title small { background: #4a5160; }
.swagger-ui .info .title small.version-stamp { background: #3d6b00; }
.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui .info__license__url a { color: #1d4f91; }
.swagger-ui .btn.authorize { color: #17643f; border-color: #17643f; }
.swagger-ui .btn.authorize svg { fill: #17643f; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d5c9e; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #17643f; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #a4231c; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method,
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .parameter__in, .swagger-ui .parameter__type { color: #4a5160; }
.swagger-ui .opblock .opblock-summary-path, .swagger-ui .opblock-tag small { word-break: normal; overflow-wrap: anywhere; hyphens: none; }
@media (max-width: 600px) {
  .swagger-ui .opblock-tag { flex-wrap: wrap; }
  .swagger-ui .opblock-tag small { flex: 1 0 100%; order: 3; padding: 0 0 8px; }
  .swagger-ui .opblock .opblock-summary-path { font-size: 14px; }
  .swagger-ui table { display: block; overflow-x: auto; }
}
.errors-page main { max-width: 72rem; margin: 0 auto; padding: 1rem; font: 15px/1.5 system-ui, sans-serif; color: #1f2430; }
.errors-page a { color: #1d4f91; }
.errors-page code { font: 13px ui-monospace, monospace; background: #eef0f4; padding: 0 3px; border-radius: 3px; overflow-wrap: anywhere; }
.errors-page .table-scroll { overflow-x: auto; }
.errors-page table { border-collapse: collapse; width: 100%; }
.errors-page th, .errors-page td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid #d5d9e0; }
.errors-page td:first-child code { white-space: nowrap; }
@media (max-width: 600px) {
  .errors-page thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  .errors-page table, .errors-page tbody, .errors-page tr, .errors-page td { display: block; }
  .errors-page tr { padding: 8px 0; border-bottom: 1px solid #d5d9e0; }
  .errors-page td { border: 0; padding: 2px 0; }
  .errors-page td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
}
@media (prefers-color-scheme: dark) {
  html { background: #000; }
  body { filter: invert(1) hue-rotate(180deg); }
  /* Turned back: images, and the coloured badges, whose white text the inversion made dark on light. */
  img, svg image, .swagger-ui .opblock-summary-method, .swagger-ui .info .title small { filter: invert(1) hue-rotate(180deg); }
}
`;
