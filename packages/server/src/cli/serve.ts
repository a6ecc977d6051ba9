import type { Command } from 'commander';
import { type Config, loadConfig } from '../config.ts';
import { type DemoAccount, ensureDemoAccount, wantsDemoAccount } from '../demo-account.ts';
import { createLogger, writeAfterLogs } from '../logger.ts';
import { startServer } from '../server.ts';
import { isPostgresUrl } from '../store/database.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the service: API, widget, hosted pages and background work (what `npm start` runs).')
    .option(
      '--demo',
      'on a first start over a SQLite file, create a demo account (automatic on the default ./data/obolus.db)',
    )
    .action(async (options: { demo?: boolean }) => {
      const config = loadConfig();
      const engine = isPostgresUrl(config.databaseUrl) ? 'postgres' : 'sqlite';
      const demoWanted = wantsDemoAccount(engine, Boolean(process.env.OBOLUS_DATABASE_URL), options.demo === true);
      const logger = createLogger(config.logLevel);
      const server = await startServer(config, logger, {
        onMigration: (name) => logger.info({ migration: name }, 'applied migration'),
      });
      const demo = demoWanted ? await ensureDemoAccount(server.services) : null;
      writeAfterLogs(logger, banner(config, server.services.database.location, demo, server.metricsUrl));
      // Stop accepting, let requests in flight finish and be answered, then close; past the
      // deadline, exit anyway (an orchestrator would kill the process soon after).
      const stop = async (signal: string) => {
        logger.info({ signal, deadline_ms: config.shutdownTimeoutMs }, 'shutting down');
        const deadline = setTimeout(() => {
          logger.error({ signal }, 'shutdown deadline passed: exiting with requests still in flight');
          logger.flush();
          process.exit(1);
        }, config.shutdownTimeoutMs);
        await server.close();
        clearTimeout(deadline);
        logger.info({ signal }, 'shut down');
        logger.flush();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

type BannerConfig = Pick<Config, 'baseUrl' | 'appUrl'>;

/** The addresses the banner lists under the demo account, one line each: add a surface here. */
export function bannerAddresses(config: BannerConfig, metricsUrl: string | null): Array<[label: string, urls: string]> {
  const { baseUrl, appUrl } = config;
  return [
    ['Start page', `${baseUrl}/`],
    ['Payment intents', `${baseUrl}/api/v1/payment-intents`],
    ['Dashboard', `${appUrl}/dashboard   (set a password: npx obolus accounts set-password <account-id>)`],
    ['Health', `${baseUrl}/healthz   ${baseUrl}/readyz`],
    ['Metrics', metricsUrl ?? 'off (OBOLUS_METRICS_PORT)'],
  ];
}

export function banner(
  config: BannerConfig,
  location: string,
  demo: DemoAccount | null,
  metricsUrl: string | null,
): string {
  const { baseUrl } = config;
  const lines = [``, `Obolus is running at ${baseUrl}  (database: ${location})`, ``];
  if (demo) lines.push(...demoLines(baseUrl, demo));
  else lines.push(`Accounts: npx obolus accounts list   (a new secret key: npx obolus keys roll <account-id>)`, ``);
  const addresses = bannerAddresses(config, metricsUrl);
  const width = Math.max(...addresses.map(([label]) => label.length)) + 2;
  for (const [label, urls] of addresses) lines.push(`  ${label.padEnd(width)}${urls}`);
  lines.push(``);
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
