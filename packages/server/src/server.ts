import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import type { Services } from './http/services.ts';
import { openServices } from './services.ts';
import { startMaintenance } from './workers/maintenance.ts';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  /** The address it listens on, e.g. http://127.0.0.1:4242 */
  address: string;
  close(): Promise<void>;
}

/** Everything `obolus serve` runs: store, HTTP listener and background work, closed together. */
export async function startServer(
  config: Config,
  logger: Logger,
  options: { clock?: Clock; schema?: string; services?: Services; onMigration?: (name: string) => void } = {},
): Promise<RunningServer> {
  const services = options.services ?? (await openServices(config, options));
  const app = await buildApp(services, logger);
  const address = await app.listen({ port: config.port, host: config.host });
  const maintenance = startMaintenance(services, logger);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      maintenance.stop();
      await app.close();
      if (!options.services) await services.database.close();
    })();
    return closing;
  };
  return { app, services, address, close };
}
