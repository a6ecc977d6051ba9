import { loadConfig } from '../config.ts';
import type { Services } from '../services.ts';
import { openServices } from '../services.ts';
import { requireExistingDatabase } from './database-check.ts';

/**
 * Runs `work` against the existing database of OBOLUS_DATABASE_URL (brought up to date), and
 * closes it afterwards; refused when there is no database there yet.
 */
export async function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
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
