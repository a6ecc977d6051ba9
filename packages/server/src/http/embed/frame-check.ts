import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { allowedOrigins, originOf } from '../../domain/allowed-origins.ts';
import type { Services } from '../../services.ts';
import { CLIENT_KEY } from '../checkout/embed-query.ts';

const FrameCheckQuery = Type.Object({ pk: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

/**
 * `GET /embed/v1/frame-check?pk=…`: asked by the loader when the widget's handshake never
 * came, to tell the merchant why. A frame refused by `frame-ancestors` is opaque to the
 * page; this says, for the asking page's own Origin only, whether it may frame this key's
 * widget. It reveals nothing a page could not learn by framing the widget itself.
 */
export function registerFrameCheck(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: Static<typeof FrameCheckQuery> }>(
    '/frame-check',
    { schema: { querystring: FrameCheckQuery } },
    async (request, reply) => {
      const origin = originOf(String(request.headers.origin ?? ''));
      if (origin) reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
      const { pk } = request.query;
      const account = CLIENT_KEY.test(pk) ? await services.repos.accounts.findByClientKey(pk) : undefined;
      if (account?.status !== 'active') return { framing: 'unavailable' };
      const allowed = allowedOrigins(account);
      const own = originOf(services.config.baseUrl);
      const permitted = allowed.length === 0 || (origin !== null && (allowed.includes(origin) || origin === own));
      return { framing: permitted ? 'allowed' : 'origin_not_allowed' };
    },
  );
}
