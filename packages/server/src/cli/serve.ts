import cluster from 'node:cluster';
import { type Command, InvalidArgumentError } from 'commander';
import type { Logger } from 'pino';
import { type Config, loadConfig } from '../config.ts';
import { type DemoAccount, ensureDemoAccount } from '../demo-account.ts';
import { createLogger } from '../logger.ts';
import { startServer } from '../server.ts';
import { isPostgresUrl } from '../store/database.ts';
import { MAX_WORKERS, runPrimary, runWorker } from './cluster.ts';

function parseWorkers(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_WORKERS) {
    throw new InvalidArgumentError(`a whole number of processes, 1 to ${MAX_WORKERS}`);
  }
  return n;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the service: API, widget, hosted pages and background work (what `npm start` runs).')
    .option(
      '--workers <n>',
      'processes sharing the port and the database (PostgreSQL only: SQLite has one writer)',
      parseWorkers,
      1,
    )
    .action(async (options: { workers: number }, command: Command) => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      if (cluster.isWorker) return runWorker(config, logger);
      if (options.workers > 1 && !isPostgresUrl(config.databaseUrl)) {
        command.error(
          `error: --workers ${options.workers} needs PostgreSQL (OBOLUS_DATABASE_URL=postgres://…): ` +
            'the embedded SQLite store has one writer, so it runs as one process. Drop --workers, or use PostgreSQL.',
          { exitCode: 2, code: 'obolus.workers' },
        );
      }
      const running =
        options.workers > 1 ? await runPrimary(config, logger, options.workers) : await serveOne(config, logger);
      process.stdout.write(banner(config.baseUrl, running.location, running.demo, options.workers));
      const stop = async (signal: string) => {
        logger.info({ signal }, 'shutting down');
        await running.stop();
        logger.flush();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

/** One process: the server, its background work, and the demo account on a first start. */
async function serveOne(config: Config, logger: Logger) {
  const server = await startServer(config, logger, {
    onMigration: (name) => logger.info({ migration: name }, 'applied migration'),
  });
  const demo = await ensureDemoAccount(server.services);
  return { location: server.services.database.location, demo, stop: () => server.close() };
}

export function banner(baseUrl: string, location: string, demo: DemoAccount | null, workers = 1): string {
  const processes = workers > 1 ? `, ${workers} worker processes` : '';
  const lines = [``, `Obolus is running at ${baseUrl}  (database: ${location}${processes})`, ``];
  if (demo) {
    const body = `{"amount": 2000, "currency": "USD", "mode": "sandbox", "description": "Demo order"}`;
    lines.push(
      `First start: created the demo account ${demo.account.id}`,
      `  Secret key  ${demo.secretKey}   (shown only now; stored as a digest)`,
      `  Client key  ${demo.account.clientKey}`,
      ``,
      `Create a sandbox payment intent:`,
      `  curl -s ${baseUrl}/api/v1/payment-intents -H "Authorization: Bearer ${demo.secretKey}" -H "Content-Type: application/json" -d '${body}'`,
      ``,
      `Pay on the hosted checkout page of a sandbox product (card 4242 4242 4242 4242, any future expiry and CVC):`,
      `  ${baseUrl}/${demo.product.id}`,
      ``,
    );
  } else {
    lines.push(`Accounts: npx obolus accounts list   (a new secret key: npx obolus keys roll <account-id>)`, ``);
  }
  lines.push(
    `  Payment intents  ${baseUrl}/api/v1/payment-intents`,
    `  Health           ${baseUrl}/healthz   ${baseUrl}/readyz`,
    `  Metrics          ${baseUrl}/metrics`,
    ``,
  );
  return `${lines.join('\n')}\n`;
}
