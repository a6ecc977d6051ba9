import type { Clock } from './clock.ts';
import type { ChallengeDeps } from './domain/payments/challenge.ts';
import { CardKeyring } from './crypto/card-keyring.ts';
import { FailureLimiter } from './domain/payments/failure-limiter.ts';
import type { Processor } from './processors/processor.ts';
import { createProcessorRegistry } from './processors/registry.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { Services } from './http/services.ts';
import { migrateToLatest, openDatabase } from './store/database.ts';
import { createRepositories } from './store/repositories.ts';

export interface OpenServicesOptions {
  clock?: Clock;
  schema?: string;
  onMigration?: (name: string) => void;
  /** The live connector; none means live payments are refused (never simulated). */
  liveProcessor?: Processor | null;
}

/** Opens the database named by the configuration, brings its schema up to date, and wires the repositories. */
export async function openServices(
  config: Config,
  options: OpenServicesOptions = {},
): Promise<Services> {
  const database = openDatabase(config.databaseUrl, options.schema ? { schema: options.schema } : {});
  try {
    await migrateToLatest(database.db, options.onMigration);
  } catch (error) {
    await database.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const repos = createRepositories(database.db);
  return {
    config,
    clock,
    database,
    repos,
    keyring: new CardKeyring(repos.encryptionKeys, clock),
    processors: createProcessorRegistry(options.liveProcessor ?? null),
    limiter: new FailureLimiter(clock),
  };
}

/** The payment use cases' dependencies, taken from the process's services. */
export function paymentDeps(services: Services): ChallengeDeps {
  const { repos } = services;
  return {
    store: repos.payments,
    intents: repos.intents,
    transactions: repos.transactions,
    challenges: repos.transactions,
    accounts: repos.accounts,
    clock: services.clock,
    limiter: services.limiter,
    keyring: services.keyring,
    processors: services.processors,
  };
}
