import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';

/** The card-encryption public keys; the widget encrypts to the first. */
export function registerJwks(app: FastifyInstance, services: Services): void {
  app.get('/jwks.json', async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return { keys: await services.keyring.publicJwks() };
  });
}
