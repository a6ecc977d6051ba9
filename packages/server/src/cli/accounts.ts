import type { Command } from 'commander';
import { accountIdArgument, printJson, withServices } from './context.ts';
import { readPasswordLine } from './password-input.ts';

// The domain's modules are imported by each action when it runs, never for `--help` (decision 0260).
const accountsDomain = () => import('../domain/accounts.ts');
const passwords = () => import('../domain/dashboard/passwords.ts');

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').description('Create, list, activate and deactivate merchant accounts.');

  accounts
    .command('create')
    .description('Create an account and print its keys (the secret key is shown only this once).')
    .requiredOption('--name <name>', 'the merchant name shoppers see')
    .requiredOption('--email <email>', 'the contact address of the merchant')
    .option('--password-stdin', 'read a dashboard password (one line, 12 characters or more) from standard input')
    .option('--json', 'print one JSON object and nothing else')
    .action(async (options: { name: string; email: string; json?: boolean; passwordStdin?: boolean }) => {
      const [{ createAccount }, { checkPassword, setDashboardPassword }] = await Promise.all([
        accountsDomain(),
        passwords(),
      ]);
      const password = options.passwordStdin ? await readPasswordLine() : undefined;
      if (password !== undefined) checkPassword(password);
      const created = await withServices(async (s) => {
        const made = await createAccount(s.repos.accounts, s.clock, options);
        if (password !== undefined) await setDashboardPassword(s.repos.dashboard, s.clock, made.account.id, password);
        return made;
      });
      const out = {
        account_id: created.account.id,
        secret_key: created.secretKey,
        client_key: created.account.clientKey,
      };
      if (options.json) return printJson(out);
      console.log(`Created account ${out.account_id} (${created.account.name})`);
      console.log(`  Secret key: ${out.secret_key}   (shown once; keep it on your server)`);
      console.log(`  Client key: ${out.client_key}   (publishable; for the widget)`);
    });

  accounts
    .command('list')
    .description('List every account.')
    .option('--json', 'print a JSON array')
    .action(async (options: { json?: boolean }) => {
      const list = await withServices((s) => s.repos.accounts.list());
      const rows = list.map((a) => ({
        account_id: a.id,
        name: a.name,
        email: a.email,
        status: a.status,
        client_key: a.clientKey,
        created: new Date(a.createdAt).toISOString(),
      }));
      if (options.json) return printJson(rows);
      if (rows.length === 0)
        return console.log('No accounts yet. Create one with: obolus accounts create --name … --email …');
      for (const r of rows)
        console.log(`${r.account_id}  ${r.status.padEnd(8)}  ${r.name} <${r.email}>  ${r.client_key}`);
    });

  accounts
    .command('set-password <id>')
    .description('Set the dashboard password of an account, read as one line from standard input (never echoed).')
    .action(async (id: string) => {
      const { setDashboardPassword } = await passwords();
      const password = await readPasswordLine();
      await withServices((s) => setDashboardPassword(s.repos.dashboard, s.clock, accountIdArgument(id), password));
      console.log(`Dashboard password set for ${id}; its dashboard sessions have ended.`);
    });

  accounts
    .command('end-sessions <id>')
    .description('End every dashboard session of an account, in every process (they sign in again).')
    .action(async (id: string) => {
      const [{ CLI_ACTOR }, { endAllSessions }] = await Promise.all([
        import('../domain/audit.ts'),
        import('../domain/dashboard/sessions.ts'),
      ]);
      const accountId = accountIdArgument(id);
      const ended = await withServices(async (s) => {
        if (!(await s.repos.accounts.find(accountId))) throw new Error(`No such account: ${id}`);
        return endAllSessions(s.repos.dashboard, s.clock, { accountId, actor: CLI_ACTOR });
      });
      console.log(`Ended ${ended} dashboard session${ended === 1 ? '' : 's'} of ${id}.`);
    });

  for (const status of ['activate', 'deactivate'] as const) {
    accounts
      .command(`${status} <id>`)
      .description(status === 'activate' ? 'Let an account use the API again.' : 'Refuse every API call of an account.')
      .action(async (id: string) => {
        const { setAccountStatus } = await accountsDomain();
        await withServices((s) =>
          setAccountStatus(s.repos.accounts, accountIdArgument(id), status === 'activate' ? 'active' : 'inactive'),
        );
        console.log(`${id} is now ${status === 'activate' ? 'active' : 'inactive'}`);
      });
  }
}
