import { type Command, Option } from 'commander';
import type { LiveConnectorConfig } from '../connectors/live-config.ts';

/**
 * `obolus verify-connector --connector stripe|checkout`: the scripted payments of
 * connectors/verify.ts against the operator's own sandbox account (keys in the usual
 * OBOLUS_<NAME>_* variables, sandbox keys only), before going live (docs/live.md).
 */
export function registerVerifyConnector(program: Command): void {
  program
    .command('verify-connector')
    .description(
      "Run scripted test payments through a live connector against your acquirer's sandbox account and check what Obolus makes of each answer.",
    )
    .addOption(
      new Option('--connector <name>', 'the connector to check').choices(['stripe', 'checkout']).makeOptionMandatory(),
    )
    .action(async (options: { connector: 'stripe' | 'checkout' }) => {
      process.exitCode = await runVerifyConnector(options.connector, process.env, {
        progress: (line) => process.stderr.write(`${line}\n`),
        out: (text) => process.stdout.write(`${text}\n`),
      });
    });
}

/** Runs the script and prints its table; answers the exit code (0: every step agrees). */
export async function runVerifyConnector(
  connector: 'stripe' | 'checkout',
  env: NodeJS.ProcessEnv,
  print: { progress(line: string): void; out(text: string): void },
): Promise<number> {
  // The connectors and their SDKs load when the command runs, never for `--help` (decision 0260).
  const [{ parseCheckoutConfig }, { createLiveConnector }, { parseStripeConfig }, verify] = await Promise.all([
    import('../connectors/checkout/config.ts'),
    import('../connectors/live.ts'),
    import('../connectors/stripe/config.ts'),
    import('../connectors/verify.ts'),
  ]);
  const { agreesWord, CHECKOUT_PLAN, STRIPE_PLAN, tableOf, verifyConnector } = verify;
  const config: LiveConnectorConfig =
    connector === 'stripe'
      ? { name: 'stripe', stripe: parseStripeConfig(env, { sandbox: true }) }
      : { name: 'checkout', checkout: parseCheckoutConfig(env, { sandbox: true }) };
  const plan = connector === 'stripe' ? STRIPE_PLAN : CHECKOUT_PLAN;
  const apiBase = config.name === 'stripe' ? config.stripe.apiBase : config.checkout.apiBase;
  print.progress(`Verifying the ${plan.acquirer} connector against ${apiBase.origin} (sandbox keys) …`);
  // A decline (402) is an answer like any other; what failed otherwise is worth a line.
  const processor = await createLiveConnector(config, {
    warn: (fields) => {
      if (fields.status !== 402) print.progress(`  ${plan.acquirer} call failed: ${JSON.stringify(fields)}`);
    },
  });
  const rows = await verifyConnector(processor, plan, (row) =>
    print.progress(`  ${row.step}: ${agreesWord(row.agrees)}`),
  );
  print.out(tableOf(rows, plan));
  const wrong = rows.filter((r) => r.agrees === false);
  print.out(
    wrong.length === 0
      ? '\nEvery step agrees.'
      : `\n${wrong.length} step(s) do not agree: do not go live before they do (docs/live.md).`,
  );
  return wrong.length === 0 ? 0 : 1;
}
