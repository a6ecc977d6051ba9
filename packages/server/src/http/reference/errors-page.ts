import { ERROR_GUIDE } from '../../domain/error-guide.ts';
import { ERROR_CODES } from '../../domain/errors.ts';
import { ERROR_STATUS } from '../error-statuses.ts';
import { escapeHtml } from '../html.ts';

/** `text` escaped, with its `code spans` as <code>. */
const prose = (text: string) =>
  escapeHtml(text).replace(/`([^`]+)`/g, (_match, code: string) => `<code>${code}</code>`);

/** GET /docs/errors: docs/errors.md's table as a page of the reference, from the same catalogue. */
export function errorsPageHtml(): string {
  const rows = ERROR_CODES.map((code) => {
    const { status, type } = ERROR_STATUS[code];
    const { meaning, action } = ERROR_GUIDE[code];
    return `<tr id="${escapeHtml(code)}"><td><code>${escapeHtml(code)}</code></td><td data-label="HTTP">${status}</td><td data-label="type">${escapeHtml(type)}</td><td>${prose(meaning)}</td><td data-label="What to do">${prose(action)}</td></tr>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Errors · Obolus API reference</title>
<link rel="icon" href="/docs/assets/favicon.png">
<link rel="stylesheet" href="/docs/assets/reference.css">
</head>
<body class="errors-page">
<main>
<p><a href="/docs">← API reference</a></p>
<h1>Errors</h1>
<p>Every error of the merchant API is a non-2xx answer with the body
<code>{"error":{"type","code","message","param?","request_id"}}</code>. Program against
<code>code</code>, not <code>message</code>. The transactions surface answers
<code>{"error": "&lt;message&gt;"}</code> with the same statuses. Retry with the same
<code>Idempotency-Key</code> on 408, 409 <code>idempotency_key_in_use</code>, 429 and 500.</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="Error codes">
<table>
<thead><tr><th scope="col">code</th><th scope="col">HTTP</th><th scope="col">type</th><th scope="col">meaning</th><th scope="col">what to do</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</div>
</main>
</body>
</html>
`;
}
