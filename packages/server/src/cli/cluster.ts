import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { clusterMetrics } from '../http/plugins/metrics.ts';
import { startMetrics, startServer } from '../server.ts';
import { openServices } from '../services.ts';
import { connectionLossLog } from '../workers/failure-log.ts';
import type { Running } from './running.ts';

/** How long the primary waits to try again when a replacement worker could not start. */
const REPLACE_RETRY_MS = 5000;

/**
 * `obolus serve --workers N`, primary side (PostgreSQL only, so never a demo account): migrates once, then
 * forks N workers that share the port (node:cluster hands out connections) and only the
 * database. Background loops run in every worker; they lease their work in PostgreSQL, so
 * any number of processes may run them (docs/operations.md). A worker that dies is replaced.
 */
export async function runPrimary(config: Config, logger: Logger, workers: number): Promise<Running> {
  const services = await openServices(config, {
    onMigration: (name) => logger.info({ migration: name }, 'applied migration'),
    onConnectionLost: connectionLossLog(logger),
  });
  await services.database.close();
  let stopping = false;
  const fork = () =>
    new Promise<Worker>((resolve, reject) => {
      const worker = cluster.fork();
      let ready = false;
      worker.once('message', (message) => {
        ready = message === 'ready';
        if (ready) resolve(worker);
      });
      worker.once('exit', (code, signal) => {
        if (stopping) return;
        if (!ready) return reject(new Error(`a worker exited with ${code ?? signal} before it served`));
        // Died while serving: the others carry on, and a new one takes its place.
        logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
        replace();
      });
    });
  // A worker cannot start while the database is away (it migrates first): try again until it can.
  const replace = () =>
    fork().then(
      (worker) => logger.info({ pid: worker.process.pid }, 'worker replaced'),
      (error) => {
        logger.error({ err: error }, `could not replace a worker; trying again in ${REPLACE_RETRY_MS / 1000} s`);
        if (!stopping) setTimeout(replace, REPLACE_RETRY_MS);
      },
    );
  const stop = async () => {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      running.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    await Promise.all(Array.from({ length: workers }, fork));
  } catch (error) {
    await stop();
    throw error;
  }
  // One listener for the cluster: scraped, it asks every worker and sums what they answer.
  const metrics = await startMetrics(config, clusterMetrics(), logger);
  const stopAll = async () => {
    await stop();
    await metrics?.close();
  };
  return { location: services.database.location, demo: null, metricsUrl: metrics?.url ?? null, stop: stopAll };
}

/** Worker side: one server on the shared port; says "ready" to the primary, ends on SIGTERM. */
export async function runWorker(config: Config, logger: Logger): Promise<void> {
  const server = await startServer(config, logger, { metricsToPrimary: true }).catch((error) => {
    logger.fatal({ err: error }, 'worker could not start');
    logger.flush();
    process.exit(1);
  });
  const stop = async () => {
    await server.close();
    logger.flush();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', () => {}); // the primary decides; a terminal's Ctrl-C reaches every process
  process.send?.('ready');
}
