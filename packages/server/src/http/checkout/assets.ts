import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { type Bundle, type BundleName, bundle } from './bundles.ts';

/**
 * The browser bundles. Asset URLs carry the content hash and the loader's URL is versioned,
 * so every one is cached for a year and never revalidated; the ETag serves proxies and
 * clients that ask anyway.
 */

const ASSET = /^(widget|checkout|loader)-([0-9a-f]{16})\.js$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

function sendBundle(request: FastifyRequest, reply: FastifyReply, asset: Bundle): FastifyReply {
  const etag = `"${asset.hash}"`;
  reply
    .header('ETag', etag)
    .header('Cache-Control', IMMUTABLE)
    .header('Vary', 'Accept-Encoding')
    .header('X-Content-Type-Options', 'nosniff')
    .type('text/javascript; charset=utf-8');
  const known = (request.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (known.includes(etag)) return reply.code(304).send();
  if (/\bgzip\b(?!;\s*q=0(\.0+)?\b)/.test(request.headers['accept-encoding'] ?? '')) {
    return reply.header('Content-Encoding', 'gzip').send(asset.gzip);
  }
  return reply.send(asset.code);
}

export function registerAssets(app: FastifyInstance): void {
  app.get<{ Params: { file: string } }>('/embed/assets/:file', async (request, reply) => {
    const match = ASSET.exec(request.params.file);
    const asset = match ? await bundle(match[1] as BundleName) : undefined;
    if (!asset || asset.hash !== match?.[2]) {
      throw new ApiError('route_not_found', `Unrecognized request: GET ${request.url}`);
    }
    // Same-origin pages only: the widget and the hosted page.
    reply.header('Cross-Origin-Resource-Policy', 'same-origin');
    return sendBundle(request, reply, asset);
  });

  // Merchant pages load the loader from their own origin, with Subresource Integrity, which needs CORS.
  app.get('/js/v1/obolus.js', async (request, reply) => {
    const loader = await bundle('loader');
    reply.header('Access-Control-Allow-Origin', '*').header('Cross-Origin-Resource-Policy', 'cross-origin');
    return sendBundle(request, reply, loader);
  });
}
