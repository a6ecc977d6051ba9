import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { contentSecurityPolicy, sendPage } from '../checkout/page-security.ts';
import { OPENAPI_PATH } from '../openapi/document.ts';
import { errorsPageHtml } from './errors-page.ts';
import { REFERENCE_CSS, REFERENCE_HTML, REFERENCE_SCRIPT } from './reference-html.ts';
import { documentForPage, type ServedAddresses } from './served-document.ts';

/**
 * GET /docs: the API reference, Swagger UI (from the swagger-ui-dist package) over
 * /api/v1/openapi.json. Every byte comes from this server: scripts and styles from 'self'
 * only, no inline code, nothing fetched from anywhere else (decision 0112).
 */
interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const asset = (type: string, body: Buffer): Asset => ({
  type,
  body,
  gzip: gzipSync(body),
  etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`,
});

let assets: Map<string, Asset> | undefined;
/** Read on first use: the bundle is 1.7 MB that a server which never shows /docs need not hold. */
function assetsOnce(): Map<string, Asset> {
  assets ??= new Map([
    ['swagger-ui-bundle.js', asset('text/javascript', readFileSync(join(swaggerDir, 'swagger-ui-bundle.js')))],
    ['swagger-ui.css', asset('text/css', readFileSync(join(swaggerDir, 'swagger-ui.css')))],
    ['favicon.png', asset('image/png', readFileSync(join(swaggerDir, 'favicon-32x32.png')))],
    ['reference.js', asset('text/javascript', Buffer.from(REFERENCE_SCRIPT))],
    ['reference.css', asset('text/css', Buffer.from(REFERENCE_CSS))],
  ]);
  return assets;
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, file: Asset): FastifyReply {
  reply
    .header('ETag', file.etag)
    .header('Cache-Control', 'public, max-age=3600')
    .header('Vary', 'Accept-Encoding')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cross-Origin-Resource-Policy', 'same-origin')
    .type(file.type.startsWith('text/') ? `${file.type}; charset=utf-8` : file.type);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
    return reply.header('Content-Encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.body);
}

export const REFERENCE_CSP = contentSecurityPolicy({ styleHashes: ["'self'"], frameAncestors: [] }).replace(
  "frame-src 'self'",
  "frame-src 'none'",
);

/** Where the page's Swagger UI reads the document: this installation's addresses filled in. */
const PAGE_DOCUMENT_PATH = '/docs/openapi.json';

export function registerReferencePage(app: FastifyInstance, addresses: ServedAddresses): void {
  app.get('/docs', async (_request, reply) =>
    sendPage(reply, 200, REFERENCE_CSP, REFERENCE_HTML(PAGE_DOCUMENT_PATH, OPENAPI_PATH)),
  );
  let pageDocument: string | undefined;
  app.get(PAGE_DOCUMENT_PATH, async (_request, reply) => {
    pageDocument ??= JSON.stringify(documentForPage(app.swagger() as Record<string, unknown>, addresses));
    return reply.header('Cache-Control', 'no-cache').type('application/json; charset=utf-8').send(pageDocument);
  });
  app.get('/docs/errors', async (_request, reply) => sendPage(reply, 200, REFERENCE_CSP, errorsPageHtml()));
  app.get<{ Params: { file: string } }>('/docs/assets/:file', async (request, reply) => {
    const file = assetsOnce().get(request.params.file);
    if (!file) throw new ApiError('route_not_found', `Unrecognized request: GET ${request.url}`);
    return sendAsset(request, reply, file);
  });
}
