import type { FastifyInstance } from 'fastify';
import { allowedOrigins, originOf } from '../../domain/allowed-origins.ts';
import type { Services } from '../../services.ts';
import { appearanceCss } from './appearance.ts';
import { assetPath, bundle } from './bundles.ts';
import { readEmbedQuery } from './embed-query.ts';
import { orUnavailablePage, sendErrorPage } from './error-page.ts';
import { contentSecurityPolicy, sendPage, styleHash } from './page-security.ts';
import { WIDGET_STYLE_HASH, widgetHtml } from './widget-html.ts';

/**
 * `GET /embed?pk=…`: the card form a merchant page frames (spec §4.3, docs/widget-protocol.md).
 * An account with allowed origins is framed only by them (CSP frame-ancestors) and its widget
 * talks to no other parent; our own hosted checkout page may always frame it.
 */
export function registerEmbedPage(app: FastifyInstance, services: Services): void {
  app.get(
    '/embed',
    orUnavailablePage(async (request, reply) => {
      const query = readEmbedQuery(request.query as Record<string, unknown>);
      if ('problem' in query) return sendErrorPage(request, reply, query.problem);
      const account = await services.repos.accounts.findByClientKey(query.pk);
      if (!account) {
        return sendErrorPage(request, reply, {
          status: 404,
          title: 'This checkout cannot be shown',
          message: 'No merchant has this client key (pk). Check the key in the shop’s integration.',
          param: 'pk',
        });
      }
      if (account.status !== 'active') {
        return sendErrorPage(request, reply, {
          status: 403,
          title: 'Payments are unavailable',
          message: 'This merchant cannot take payments right now.',
        });
      }
      const origins = allowedOrigins(account);
      const challengeOrigin = originOf(services.config.baseUrl);
      const themed = appearanceCss(query.appearance);
      const csp = contentSecurityPolicy({
        styleHashes: themed ? [WIDGET_STYLE_HASH, styleHash(themed)] : [WIDGET_STYLE_HASH],
        frameAncestors: origins.length ? ["'self'", ...origins] : null,
        frameSources: challengeOrigin ? [challengeOrigin] : [],
      });
      const { appearance: _, summary, ...rest } = query;
      const config = { ...rest, allowedOrigins: origins.length ? origins : null };
      return sendPage(reply, 200, csp, widgetHtml(config, assetPath(await bundle('widget')), { summary, themed }));
    }),
  );
}
