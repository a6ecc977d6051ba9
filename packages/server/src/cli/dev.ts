import { randomBytes } from 'node:crypto';
import { type Command, InvalidArgumentError } from 'commander';

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('--port takes 0 to 65535.');
  return port;
}

function parseUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new InvalidArgumentError('give an http:// URL, e.g. http://localhost:4242/hooks/stripe.');
  }
  return value;
}

/** `obolus dev …`: tools for developing against Obolus's live path without real money. */
export function registerDevCommands(program: Command): void {
  const dev = program.command('dev').description('Development tools (never for production).');
  dev
    .command('stripe-double')
    .description('Run a local double of the Stripe API (loopback only) for the Stripe connector, with fault injection.')
    .option('--port <port>', 'port on 127.0.0.1 (0 picks one)', parsePort, 12111)
    .option('--forward-to <url>', 'send signed webhooks here, e.g. http://localhost:4242/hooks/stripe', parseUrl)
    .action(async (options: { port: number; forwardTo?: string }) => {
      // The doubles load when their command runs, never for `--help` (decision 0260).
      const { startStripeDouble } = await import('../dev/stripe-double/server.ts');
      const secretKey = `sk_live_double${randomBytes(12).toString('hex')}`;
      const webhookSecret = `whsec_double${randomBytes(16).toString('hex')}`;
      const double = await startStripeDouble({ port: options.port, secretKey });
      if (options.forwardTo) double.webhooks.endpoint = { url: options.forwardTo, secret: webhookSecret };
      process.stdout.write(
        [
          `Stripe double listening on ${double.url} (cards: docs/live.md; faults: POST ${double.url}/__double/faults)`,
          'Run Obolus against it with:',
          '  OBOLUS_LIVE_CONNECTOR=stripe',
          `  OBOLUS_STRIPE_API_BASE=${double.url}`,
          `  OBOLUS_STRIPE_SECRET_KEY=${secretKey}`,
          `  OBOLUS_STRIPE_WEBHOOK_SECRET=${webhookSecret}`,
          '',
        ].join('\n'),
      );
      stopOnSignal(double);
    });
  dev
    .command('checkout-double')
    .description(
      'Run a local double of the Checkout.com API (loopback only) for the Checkout.com connector, with fault injection.',
    )
    .option('--port <port>', 'port on 127.0.0.1 (0 picks one)', parsePort, 12112)
    .option('--forward-to <url>', 'send signed webhooks here, e.g. http://localhost:4242/hooks/checkout-com', parseUrl)
    .action(async (options: { port: number; forwardTo?: string }) => {
      const { startCheckoutDouble } = await import('../dev/checkout-double/server.ts');
      const webhookSecret = randomBytes(24).toString('hex');
      const double = await startCheckoutDouble({ port: options.port });
      if (options.forwardTo) double.webhooks.endpoint = { url: options.forwardTo, secret: webhookSecret };
      process.stdout.write(
        [
          `Checkout.com double listening on ${double.url} (cards: docs/live.md; faults: POST ${double.url}/__double/faults)`,
          'Run Obolus against it with:',
          '  OBOLUS_LIVE_CONNECTOR=checkout',
          `  OBOLUS_CHECKOUT_API_BASE=${double.url}`,
          `  OBOLUS_CHECKOUT_SECRET_KEY=${double.secretKey}`,
          `  OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID=pc_${'0'.repeat(26)}`,
          `  OBOLUS_CHECKOUT_WEBHOOK_SECRET=${webhookSecret}`,
          '',
        ].join('\n'),
      );
      stopOnSignal(double);
    });
}

function stopOnSignal(double: { close(): Promise<void> }): void {
  const stop = () => void double.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
