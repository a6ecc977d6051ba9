import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import type { Services } from './http/services.ts';
import { type OpenServicesOptions, openServices } from './services.ts';
import { startDisputeSimulator } from './workers/dispute-simulator.ts';
import { startExpirySweeper } from './workers/expiry-sweeper.ts';
import { startMaintenance } from './workers/maintenance.ts';
import { startReconciler } from './workers/reconciler.ts';
import { startWebhookWorker } from './workers/webhooks/worker.ts';

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
  options: OpenServicesOptions & { services?: Services } = {},
): Promise<RunningServer> {
  const services =
    options.services ??
    (await openServices(config, { logger: logger.child({ component: 'live-connector' }), ...options }));
  const app = await buildApp(services, logger);
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    if (!options.services) await services.database.close();
    throw error;
  }
  // Background work of this process; each stops with the server.
  const workers = [
    startMaintenance(services, logger),
    startExpirySweeper(services, logger),
    startWebhookWorker(services, logger),
    startDisputeSimulator(services, logger),
    startReconciler(services, logger),
  ];
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // Awaited: the webhook worker finishes its pass before the database closes.
      for (const worker of workers) await worker.stop();
      await app.close();
      if (!options.services) await services.database.close();
    })();
    return closing;
  };
  return { app, services, address, close };
}
