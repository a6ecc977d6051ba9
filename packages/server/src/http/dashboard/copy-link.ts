import type { FastifyInstance } from 'fastify';

export const COPY_SCRIPT_PATH = '/dashboard/assets/copy-link.js';

/**
 * The dashboard's one script, served from its own origin (CSP `script-src 'self'`), never
 * inline. It only adds to a page that works without it: next to each read-only field marked
 * `data-copy` it puts a "Copy link" button that writes the field's text to the clipboard and
 * says "Copied" in the page's live region (#copy-status, shown as a toast). Without script, the field stays
 * there to select and copy by hand.
 */
export const COPY_SCRIPT = `'use strict';
(function () {
  var status = document.getElementById('copy-status');
  var timer;
  var fields = document.querySelectorAll('input[data-copy]');
  Array.prototype.forEach.call(fields, function (field) {
    if (!navigator.clipboard) return;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary copy';
    button.textContent = 'Copy link';
    button.setAttribute('aria-label', 'Copy link' + (field.dataset.copy ? ' of ' + field.dataset.copy : ''));
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(field.value).then(
        function () { say('Copied'); },
        function () { field.select(); say('Could not copy: the link is selected, press Ctrl+C or Cmd+C'); }
      );
    });
    field.insertAdjacentElement('afterend', button);
  });
  function say(text) {
    if (status) {
      status.textContent = '';
      setTimeout(function () { status.textContent = text; }, 50);
    }
    clearTimeout(timer);
    timer = setTimeout(function () { if (status) status.textContent = ''; }, 4000);
  }
})();
`;

export function registerCopyScript(scope: FastifyInstance): void {
  scope.get('/assets/copy-link.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(COPY_SCRIPT),
  );
}
