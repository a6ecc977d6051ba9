import type { Command } from 'commander';
import { accountIdArgument, printJson, withServices } from './context.ts';

/**
 * An account's allowed origins: the only pages that may frame its checkout widget, and the
 * only places its hosted checkout may send shoppers back to (docs/operations.md).
 */
export function registerOriginCommands(program: Command): void {
  const origins = program
    .command('origins')
    .description('Show or set the origins allowed to embed an account’s widget and receive its shoppers.');

  origins
    .command('list <account-id>')
    .description('Print the allowed origins of an account (none: any page may embed its widget).')
    .option('--json', 'print a JSON array')
    .action(async (id: string, options: { json?: boolean }) => {
      // Imported when the command runs, never for `--help` (decision 0260).
      const [{ allowedOrigins }, { ApiError }] = await Promise.all([
        import('../domain/allowed-origins.ts'),
        import('../domain/errors.ts'),
      ]);
      const account = await withServices((s) => s.repos.accounts.find(accountIdArgument(id)));
      if (!account) throw new ApiError('resource_missing', `No such account: ${id}`, 'id');
      const list = allowedOrigins(account);
      if (options.json) return printJson(list);
      console.log(list.length ? list.join('\n') : 'No allowed origins: any page may embed this account’s widget.');
    });

  origins
    .command('set <account-id> [origins...]')
    .description('Replace the allowed origins, e.g. https://shop.example https://www.shop.example (none: clear).')
    .action(async (id: string, list: string[]) => {
      const [{ setAllowedOrigins }, { CLI_ACTOR }] = await Promise.all([
        import('../domain/allowed-origins.ts'),
        import('../domain/audit.ts'),
      ]);
      const saved = await withServices(async (s) => {
        // Its audit event commits with the list (decision 0205).
        return setAllowedOrigins(s.repos.allowedOrigins, accountIdArgument(id), list, {
          by: { actor: CLI_ACTOR },
          now: s.clock.now(),
        });
      });
      console.log(saved.length ? `${id} allows: ${saved.join(' ')}` : `${id} allows any origin`);
    });
}
