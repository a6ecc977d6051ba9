import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../store/driver-errors.ts';
import { DATABASE_RETRY_AFTER_S, databaseUnavailable, logFailure } from '../errors.ts';
import { escapeHtml } from '../html.ts';
import { contentSecurityPolicy, sendPage, styleHash } from './page-security.ts';

/**
 * The page a shopper sees instead of a blank frame when a checkout cannot be shown: what
 * went wrong in one sentence, the field at fault for the merchant, and the request id.
 */

const CSS = `
:root{color-scheme:light dark}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:Canvas;color:CanvasText}
main{max-width:32rem;margin:0 auto;padding:24px 16px}
h1{font-size:19px;margin:0 0 8px}
.meta{font-size:12px;opacity:.75}
code{font-size:13px}
`;
const CSP = contentSecurityPolicy({ styleHashes: [styleHash(CSS)], frameAncestors: null });

export interface PageProblem {
  status: 400 | 403 | 404 | 503;
  title: string;
  message: string;
  /** The query parameter or path part at fault, named for the merchant's developer. */
  param?: string;
}

export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, problem: PageProblem): FastifyReply {
  const param = problem.param ? `<p class="meta">Parameter: <code>${escapeHtml(problem.param)}</code></p>` : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(problem.title)}</title><style>${CSS}</style></head>
<body><main role="alert"><h1>${escapeHtml(problem.title)}</h1><p>${escapeHtml(problem.message)}</p>${param}
<p class="meta">Request ${escapeHtml(request.id)}</p></main></body></html>`;
  return sendPage(reply, problem.status, CSP, html);
}

type PageHandler<R extends FastifyRequest> = (request: R, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * A shopper's page that cannot be read from the database for a moment (a restart, a failover)
 * is a page that says to reload it, not the API's JSON (decision 0220).
 */
export function orUnavailablePage<R extends FastifyRequest>(handler: PageHandler<R>): PageHandler<R> {
  return async (request, reply) => {
    try {
      return await handler(request, reply);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      logFailure(request, databaseUnavailable(), error as Error);
      reply.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
      return sendErrorPage(request, reply, {
        status: 503,
        title: 'Payments are briefly unavailable',
        message: 'Reload this page in a few seconds.',
      });
    }
  };
}
