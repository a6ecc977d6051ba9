import { type Command, InvalidArgumentError } from 'commander';
import type { AuditEvent } from '../domain/audit.ts';
import { accountIdArgument, withServices } from './context.ts';

function parseSince(text: string): number {
  const time = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(time)) {
    throw new InvalidArgumentError('an ISO date or time, e.g. 2026-11-01 or 2026-11-01T09:30:00Z');
  }
  return time;
}

const asJson = (e: AuditEvent) => ({
  id: e.id,
  time: new Date(e.createdAt).toISOString(),
  account_id: e.accountId,
  action: e.action,
  actor: e.actor,
  client_network: e.clientNetwork,
  outcome: e.outcome,
  detail: e.detail,
});

/** `obolus audit list`: an account's audit trail, newest first (issue 25 item 6, decision 0205). */
export function registerAuditCommands(program: Command): void {
  const audit = program
    .command('audit')
    .description('Read the audit trail (sign-ins, key rolls, endpoint changes, …).');
  audit
    .command('list <account-id>')
    .description("An account's audit events, newest first.")
    .option('--since <time>', 'only events from this ISO date or time on', parseSince)
    .option('--limit <n>', 'at most this many (default 1000)', (v) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < 1 || n > 100_000) throw new InvalidArgumentError('1 to 100000');
      return n;
    })
    .option('--json', 'one JSON object per line')
    .action(async (id: string, options: { since?: number; limit?: number; json?: boolean }) => {
      const accountId = accountIdArgument(id);
      const events = await withServices((s) =>
        s.repos.audit.list(accountId, {
          limit: options.limit ?? 1000,
          ...(options.since !== undefined ? { since: options.since } : {}),
        }),
      );
      for (const event of events) {
        if (options.json) console.log(JSON.stringify(asJson(event)));
        else {
          const detail = event.detail ? ` ${JSON.stringify(event.detail)}` : '';
          console.log(
            `${new Date(event.createdAt).toISOString()}  ${event.action}  ${event.outcome}  ${event.actor}  ${event.clientNetwork ?? '-'}${detail}`,
          );
        }
      }
      if (!options.json && events.length === 0) console.log(`No audit events for ${accountId}.`);
    });
}
