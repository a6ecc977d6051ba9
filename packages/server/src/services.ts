import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { Services } from './http/services.ts';
import { migrateToLatest, openDatabase } from './store/database.ts';
import { createRepositories } from './store/repositories.ts';

/** Opens the database named by the configuration, brings its schema up to date, and wires the repositories. */
export async function openServices(
  config: Config,
  options: { clock?: Clock; schema?: string; onMigration?: (name: string) => void } = {},
): Promise<Services> {
  const database = openDatabase(config.databaseUrl, options.schema ? { schema: options.schema } : {});
  try {
    await migrateToLatest(database.db, options.onMigration);
  } catch (error) {
    await database.close();
    throw error;
  }
  return { config, clock: options.clock ?? systemClock, database, repos: createRepositories(database.db) };
}
