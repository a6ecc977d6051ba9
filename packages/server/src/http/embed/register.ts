import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { registerChallenge } from './challenge.ts';
import { registerConfirm } from './confirm.ts';
import { registerFrameCheck } from './frame-check.ts';
import { registerJwks } from './jwks.ts';
import { registerShopperIntent } from './shopper-intent.ts';

/**
 * The widget's internal API under /embed/v1 (docs/widget-protocol.md). Same-origin with
 * the widget, so no CORS; the client key and client_secret travel in bodies, never URLs.
 */
export async function registerEmbedApi(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(
    async (embed) => {
      embed.addHook('onRequest', (_request, reply, done) => {
        reply.header('Cache-Control', 'no-store');
        reply.header('X-Content-Type-Options', 'nosniff');
        done();
      });
      registerJwks(embed, services);
      registerShopperIntent(embed, services);
      registerConfirm(embed, services);
      registerChallenge(embed, services);
      registerFrameCheck(embed, services);
    },
    { prefix: '/embed/v1' },
  );
}
