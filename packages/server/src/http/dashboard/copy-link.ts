import type { FastifyInstance } from 'fastify';

export const COPY_SCRIPT_PATH = '/dashboard/assets/copy-link.js';

/**
 * The dashboard's one script, served from its own origin (CSP `script-src 'self'`), never
 * inline. It only adds to a page that works without it: next to each read-only field (or
 * code element) marked `data-copy` it puts a "Copy link" button (its text from
 * `data-copy-label`: "Copy key", "Copy secret") that writes the field's text to the clipboard and
 * says "Copied" in the page's live region (#copy-status, shown as a toast). Without script, the field stays
 * there to select and copy by hand.
 */
export const COPY_SCRIPT = `'use strict';
(function () {
  var status = document.getElementById('copy-status');
  var timer;
  var fields = document.querySelectorAll('input[data-copy], code[data-copy]');
  Array.prototype.forEach.call(fields, function (field) {
    if (!navigator.clipboard) return;
    var label = field.dataset.copyLabel || 'Copy link';
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary copy';
    button.textContent = label;
    button.setAttribute('aria-label', label + (field.dataset.copy ? ' of ' + field.dataset.copy : ''));
    button.addEventListener('click', function () {
      var text = field.tagName === 'INPUT' ? field.value : field.textContent;
      navigator.clipboard.writeText(text).then(
        function () { say('Copied'); },
        function () { select(field); say('Could not copy: the text is selected, press Ctrl+C or Cmd+C'); }
      );
    });
    field.insertAdjacentElement('afterend', button);
  });
  function select(field) {
    if (field.select) return field.select();
    var range = document.createRange();
    range.selectNodeContents(field);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
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
