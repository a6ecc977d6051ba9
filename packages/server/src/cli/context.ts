import { loadConfig } from '../config.ts';
import type { Services } from '../http/services.ts';
import { openServices } from '../services.ts';

/** Runs `work` against the database of OBOLUS_DATABASE_URL, and closes it afterwards. */
export async function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
  const services = await openServices(loadConfig());
  try {
    return await work(services);
  } finally {
    await services.database.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
