/** The page around Swagger UI: no inline script or style, so the CSP needs neither. */
export const REFERENCE_HTML = (documentPath: string) => `<!doctype html>
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
<noscript><p>The reference needs JavaScript. The document itself: <a href="${documentPath}">${documentPath}</a></p></noscript>
</body>
</html>
`;

/** Starts Swagger UI on the document; no validator badge (it would call validator.swagger.io). */
export const REFERENCE_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('reference');
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.document,
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
`;

/** Dark theme: Swagger UI has none, so the page is inverted (images and colours turned back). */
export const REFERENCE_CSS = `body { margin: 0; background: #fff; }
.loading { font: 16px system-ui, sans-serif; padding: 2rem; }
@media (prefers-color-scheme: dark) {
  html { background: #111; }
  body { filter: invert(0.92) hue-rotate(180deg); }
  img, svg image { filter: invert(1) hue-rotate(180deg); }
}
`;
