import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Services } from './services.ts';

/** Liveness says the process answers; readiness says it can reach its database. */
export function registerHealth(app: FastifyInstance, services: Services): void {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    try {
      await sql`select 1`.execute(services.database.db);
      return { status: 'ready', database: services.database.engine };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable', database: services.database.engine });
    }
  });
}
