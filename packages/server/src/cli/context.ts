import type { AccountId } from '../ids.ts';
import type { Services } from '../services.ts';

/**
 * Runs `work` against the existing database of OBOLUS_DATABASE_URL (brought up to date), and
 * closes it afterwards; refused when there is no database there yet.
 */
export async function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
  // The whole service, loaded when a command runs, never for its help (decision 0260).
  const [{ loadConfig }, { openServices }, { requireExistingDatabase }] = await Promise.all([
    import('../config.ts'),
    import('../services.ts'),
    import('./database-check.ts'),
  ]);
  const config = loadConfig();
  await requireExistingDatabase(config);
  const services = await openServices(config);
  try {
    return await work(services);
  } finally {
    await services.database.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * An account id as given on the command line (or answered by the API to `obolus listen`):
 * the CLI's edge, the one place there where a plain string becomes an AccountId (decision
 * 0293). Not checked here: an unknown id is refused by the lookup that follows.
 */
export function accountIdArgument(value: string): AccountId {
  return value as AccountId;
}
