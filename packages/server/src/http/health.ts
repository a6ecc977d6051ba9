import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Services } from '../services.ts';

/**
 * Liveness says the process answers; readiness says it can reach its database, and on
 * PostgreSQL that the database takes writes: behind an address that a failover moved to a
 * standby not yet promoted, every write would fail, so a load balancer should drain the
 * process meanwhile (decision 0220).
 */
export function registerHealth(app: FastifyInstance, services: Services): void {
  const { db, engine } = services.database;
  const check =
    engine === 'postgres'
      ? sql<{ standby: boolean }>`select pg_is_in_recovery() as standby`
      : sql<{ standby: boolean }>`select 0 as standby`;
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    try {
      const { rows } = await check.execute(db);
      if (!rows[0]?.standby) return { status: 'ready', database: engine };
      request.log.warn('readiness check failed: the database is a standby (read-only)');
    } catch (error) {
      const { code, message } = error as Error & { code?: string };
      request.log.warn({ cause: { code, message } }, 'readiness check failed');
    }
    return reply.code(503).header('Retry-After', '2').send({ status: 'unavailable', database: engine });
  });
}
