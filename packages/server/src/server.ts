import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { configureCardDecryption } from './crypto/card-decrypt-pool.ts';
import { configurePasswordHashing } from './crypto/password-hash-pool.ts';
import { buildApp } from './http/app.ts';
import {
  type MetricsListener,
  type MetricsSource,
  reportMetricsToPrimary,
  serveMetrics,
} from './http/plugins/metrics.ts';
import type { Services } from './services.ts';
import { type OpenServicesOptions, openServices } from './services.ts';
import { startDisputeSimulator } from './workers/dispute-simulator.ts';
import { startExpirySweeper } from './workers/expiry-sweeper.ts';
import { connectionLossLog } from './workers/failure-log.ts';
import { startMaintenance } from './workers/maintenance.ts';
import { startRateLimitSync } from './workers/rate-limit-sync.ts';
import { startReconciler } from './workers/reconciler.ts';
import { startWebhookWorker } from './workers/webhooks/worker.ts';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  /** The address it listens on, e.g. http://127.0.0.1:4242 */
  address: string;
  /** Where GET /metrics answers (its own listener, loopback by default); null when off or its port was taken. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

/** Everything `obolus serve` runs: store, HTTP listener and background work, closed together. */
export async function startServer(
  config: Config,
  logger: Logger,
  options: OpenServicesOptions & {
    services?: Services;
    /** A `serve --workers` worker: the primary serves the metrics of all (cli/cluster.ts). */
    metricsToPrimary?: boolean;
  } = {},
): Promise<RunningServer> {
  const services =
    options.services ??
    (await openServices(config, {
      logger: logger.child({ component: 'live-connector' }),
      onConnectionLost: connectionLossLog(logger),
      ...options,
    }));
  configurePasswordHashing(config.passwordHashing);
  configureCardDecryption(config.cardDecryption);
  const { app, metrics } = await buildApp(services, logger);
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    if (!options.services) await services.database.close();
    throw error;
  }
  if (options.metricsToPrimary) reportMetricsToPrimary(metrics);
  const metricsListener = options.metricsToPrimary ? null : await startMetrics(config, metrics, logger);
  // Background work of this process; each stops with the server.
  const workers = [
    startMaintenance(services, logger),
    startRateLimitSync(services, logger),
    startExpirySweeper(services, logger),
    startWebhookWorker(services, logger),
    startDisputeSimulator(services, logger),
    startReconciler(services, logger),
  ];
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // New connections are refused at once while requests in flight and the webhook worker's
      // pass finish; the database closes after both.
      await Promise.all([app.close(), ...workers.map((worker) => worker.stop())]);
      await metricsListener?.close();
      if (!options.services) await services.database.close();
    })();
    return closing;
  };
  return { app, services, address, metricsUrl: metricsListener?.url ?? null, close };
}

/** Metrics are worth less than payments: a taken port is logged, and the service runs on without them. */
export async function startMetrics(
  config: Config,
  metrics: MetricsSource,
  logger: Logger,
): Promise<MetricsListener | null> {
  if (!config.metrics) return null;
  try {
    return await serveMetrics(metrics, config.metrics.host, config.metrics.port);
  } catch (error) {
    // One line saying what to do, not a stack trace: the cause is the port, not the code.
    const { host, port } = config.metrics;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'is in use' : `cannot be listened on (${code ?? (error as Error).message})`;
    logger.warn(
      { port, host, code },
      `metrics listener not started: port ${port} on ${host} ${why}; set OBOLUS_METRICS_PORT to a free port, or to off. The service runs on without it.`,
    );
    return null;
  }
}
