import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { type DemoAccount, ensureDemoAccount, wantsDemoAccount } from '../demo-account.ts';
import { createLogger } from '../logger.ts';
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
      process.stdout.write(
        banner(config.baseUrl, server.services.database.location, demo, server.metricsUrl, config.appUrl),
      );
      const stop = async (signal: string) => {
        logger.info({ signal }, 'shutting down');
        await server.close();
        logger.flush();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

export function banner(
  baseUrl: string,
  location: string,
  demo: DemoAccount | null,
  metricsUrl: string | null,
  appUrl = baseUrl,
): string {
  const lines = [``, `Obolus is running at ${baseUrl}  (database: ${location})`, ``];
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
    `  Dashboard        ${appUrl}/dashboard   (set a password: npx obolus accounts set-password <account-id>)`,
    `  Health           ${baseUrl}/healthz   ${baseUrl}/readyz`,
    `  Metrics          ${metricsUrl ?? 'off (OBOLUS_METRICS_PORT)'}`,
    ``,
  );
  return `${lines.join('\n')}\n`;
}
