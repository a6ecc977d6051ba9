import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { productForCheckout, redirectTarget } from '../../domain/products.ts';
import type { Services } from '../../services.ts';
import { assetPath, bundle } from './bundles.ts';
import { orUnavailablePage, sendErrorPage } from './error-page.ts';
import { HOSTED_STYLE_HASH, hostedHtml } from './hosted-html.ts';
import { contentSecurityPolicy, sendPage } from './page-security.ts';

/**
 * `GET /<productId>` (spec §4.4): the route is `/prod_:id`, so it can never shadow another
 * path. Showing the page creates nothing; its script asks for the intent (hosted-session.ts).
 */

// Nobody may frame the hosted page (clickjacking); it frames only our own widget.
const CSP = contentSecurityPolicy({ styleHashes: [HOSTED_STYLE_HASH], frameAncestors: [] });

export const sendProductMissing = (request: FastifyRequest, reply: FastifyReply) =>
  sendErrorPage(request, reply, {
    status: 404,
    title: 'This product is not available',
    message: 'The link may be mistyped, or the shop no longer sells this product. Ask the shop for a new link.',
  });

export function registerHostedPage(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { id: string } }>(
    '/prod_:id',
    orUnavailablePage(async (request, reply) => {
      const { repos } = services;
      const found = await productForCheckout(repos.products, repos.accounts, `prod_${request.params.id}`);
      if (!found) return sendProductMissing(request, reply);
      const { product, account } = found;
      const config = {
        pk: account.clientKey,
        productId: product.id,
        mode: product.mode,
        successUrl: redirectTarget(product, account),
      };
      return sendPage(reply, 200, CSP, hostedHtml(product, account, config, assetPath(await bundle('checkout'))));
    }),
  );
}
