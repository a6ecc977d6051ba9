import cluster from 'node:cluster';
import { type Command, InvalidArgumentError } from 'commander';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DemoAccount } from '../demo-account.ts';
import type { Running } from './running.ts';

/** The most processes `serve --workers` starts: far more than cores only adds switching. */
export const MAX_WORKERS = 64;

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
      '--demo',
      'on a first start over a SQLite file, create a demo account (automatic on the default ./data/obolus.db)',
    )
    .option(
      '--dev',
      'developer setup (what `npm start` runs): sandbox webhook endpoints may be on this machine; refused with NODE_ENV=production',
    )
    .option(
      '--workers <n>',
      'processes sharing the port and the database (PostgreSQL only: SQLite has one writer)',
      parseWorkers,
      1,
    )
    .action(async (options: { workers: number; demo?: boolean; dev?: boolean }, command: Command) => {
      // The server loads when the command runs, never for `--help` (decision 0260).
      const [
        { developerLoopback, insecurePublicAddress, loadConfig },
        { wantsDemoAccount },
        logging,
        store,
        files,
        processes,
      ] = await Promise.all([
        import('../config.ts'),
        import('../demo-account.ts'),
        import('../logger.ts'),
        import('../store/database.ts'),
        import('../store/file-modes.ts'),
        import('./cluster.ts'),
      ]);
      const { createLogger, writeAfterLogs } = logging;
      const { isPostgresUrl } = store;
      const { dataDirectoryWarning } = files;
      const { runPrimary, runWorker } = processes;
      let config = loadConfig();
      if (options.dev) {
        const developer = developerLoopback(config);
        if (typeof developer === 'string') command.error(`error: ${developer}`, { exitCode: 2, code: 'obolus.dev' });
        else config = developer;
      }
      const logger = createLogger(config.logLevel);
      if (cluster.isWorker) return runWorker(config, logger);
      const insecure = insecurePublicAddress(config);
      if (insecure) command.error(`error: ${insecure}`, { exitCode: 2, code: 'obolus.https' });
      if (options.workers > 1 && !isPostgresUrl(config.databaseUrl)) {
        command.error(
          `error: --workers ${options.workers} needs PostgreSQL (OBOLUS_DATABASE_URL=postgres://…): ` +
            'the embedded SQLite store has one writer, so it runs as one process. Drop --workers, or use PostgreSQL.',
          { exitCode: 2, code: 'obolus.workers' },
        );
      }
      // V8's heap and glibc's arenas sized for a service, not for the machine (decision 0264):
      // the process starts again in place unless they are set (after the usage errors, which
      // stay quick; before anything listens or opens the database). Workers inherit them.
      await (await import('./serve-memory.ts')).startWithMemorySettings();
      const engine = isPostgresUrl(config.databaseUrl) ? 'postgres' : 'sqlite';
      const demoWanted = wantsDemoAccount(engine, Boolean(process.env.OBOLUS_DATABASE_URL), options.demo === true);
      const running = await (options.workers > 1
        ? runPrimary(config, logger, options.workers)
        : serveOne(config, logger, demoWanted)
      ).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EADDRINUSE') throw error;
        throw new Error(
          `port ${config.port} on ${config.host} is in use (another obolus serve?): stop what listens there, or set PORT to a free port`,
        );
      });
      if (!isPostgresUrl(config.databaseUrl)) {
        const warning = dataDirectoryWarning(running.location);
        if (warning) logger.warn(warning);
      }
      writeAfterLogs(logger, banner(config, running, options.workers));
      // Stop accepting, let requests in flight finish and be answered, then close; past the
      // deadline, exit anyway (an orchestrator would kill the process soon after).
      const stop = async (signal: string) => {
        logger.info({ signal, deadline_ms: config.shutdownTimeoutMs }, 'shutting down');
        const deadline = setTimeout(() => {
          logger.error({ signal }, 'shutdown deadline passed: exiting with requests still in flight');
          logger.flush();
          process.exit(1);
        }, config.shutdownTimeoutMs);
        await running.stop();
        clearTimeout(deadline);
        logger.info({ signal }, 'shut down');
        logger.flush();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

/** One process: the server, its background work, and the demo account on a first start when wanted. */
async function serveOne(config: Config, logger: Logger, demoWanted: boolean): Promise<Running> {
  const [{ startServer }, { ensureDemoAccount }] = await Promise.all([
    import('../server.ts'),
    import('../demo-account.ts'),
  ]);
  const server = await startServer(config, logger, {
    onMigration: (name) => logger.info({ migration: name }, 'applied migration'),
  });
  const demo = demoWanted ? await ensureDemoAccount(server.services) : null;
  return {
    location: server.services.database.location,
    demo,
    metricsUrl: server.metricsUrl,
    stop: () => server.close(),
  };
}

type BannerConfig = Pick<Config, 'baseUrl' | 'appUrl'> &
  Partial<Pick<Config, 'webhooksAllowLoopback' | 'sandboxWebhooksAllowLoopback'>>;

/** What decides whether webhooks may reach this machine, said at start (issue 25 item 4). */
export function loopbackLine(config: BannerConfig): string {
  if (config.webhooksAllowLoopback) {
    return 'Webhooks to loopback: on for every endpoint (OBOLUS_WEBHOOKS_ALLOW_LOOPBACK=true; tests only). Answers of local receivers are never stored.';
  }
  if (config.sandboxWebhooksAllowLoopback) {
    return 'Webhooks to loopback: on for sandbox endpoints (developer setup: serve --dev, what npm start runs). Answers of local receivers are never stored.';
  }
  return 'Webhooks to loopback: off (production setup; a developer machine runs npm start, i.e. obolus serve --dev).';
}

/** The addresses the banner lists under the demo account, one line each: add a surface here. */
export function bannerAddresses(config: BannerConfig, metricsUrl: string | null): Array<[label: string, urls: string]> {
  const { baseUrl, appUrl } = config;
  return [
    ['Start page', `${baseUrl}/`],
    ['Payment intents', `${baseUrl}/api/v1/payment-intents`],
    ['Dashboard', `${appUrl}/dashboard   (set a password: npx obolus accounts set-password <account-id>)`],
    ['API reference', `${baseUrl}/docs`],
    ['Health', `${baseUrl}/healthz   ${baseUrl}/readyz`],
    ['Metrics', metricsUrl ?? 'off (OBOLUS_METRICS_PORT)'],
  ];
}

export function banner(
  config: BannerConfig,
  running: Pick<Running, 'location' | 'demo' | 'metricsUrl'>,
  workers = 1,
): string {
  const { baseUrl } = config;
  const processes = workers > 1 ? `, ${workers} worker processes` : '';
  const lines = [``, `Obolus is running at ${baseUrl}  (database: ${running.location}${processes})`, ``];
  if (running.demo) lines.push(...demoLines(baseUrl, running.demo));
  else lines.push(`Accounts: npx obolus accounts list   (a new secret key: npx obolus keys roll <account-id>)`, ``);
  const addresses = bannerAddresses(config, running.metricsUrl);
  const width = Math.max(...addresses.map(([label]) => label.length)) + 2;
  for (const [label, urls] of addresses) lines.push(`  ${label.padEnd(width)}${urls}`);
  lines.push(``, loopbackLine(config), ``);
  return `${lines.join('\n')}\n`;
}

function demoLines(baseUrl: string, demo: DemoAccount): string[] {
  const body = `{"amount": 2000, "currency": "USD", "mode": "sandbox", "description": "Demo order"}`;
  return [
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
  ];
}
