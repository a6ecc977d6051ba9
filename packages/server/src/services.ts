import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { CardKeyring } from './crypto/card-keyring.ts';
import type { ChallengeDeps } from './domain/payments/challenge.ts';
import { FailureLimiter } from './domain/payments/failure-limiter.ts';
import type { Services } from './http/services.ts';
import { type ConnectorLog, HttpAcquirer } from './processors/http-acquirer.ts';
import type { Processor } from './processors/processor.ts';
import { createProcessorRegistry } from './processors/registry.ts';
import { AccountCache } from './store/account-cache.ts';
import { migrateToLatest, openDatabase } from './store/database.ts';
import { createRepositories } from './store/repositories.ts';
import { SqliteHotPaths } from './store/sqlite-hot-paths.ts';
import { writeRunnerFor } from './store/write-runner.ts';

export interface OpenServicesOptions {
  clock?: Clock;
  schema?: string;
  onMigration?: (name: string) => void;
  /**
   * The live connector; null means live payments are refused (never simulated). Left out:
   * the HTTP acquirer of OBOLUS_LIVE_CONNECTOR_URL when set.
   */
  liveProcessor?: Processor | null;
  /** Where the live connector reports failed calls (no card data, no key). */
  logger?: ConnectorLog;
}

/** Opens the database named by the configuration, brings its schema up to date, and wires the repositories. */
export async function openServices(config: Config, options: OpenServicesOptions = {}): Promise<Services> {
  const database = openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    ...(options.schema ? { schema: options.schema } : {}),
  });
  try {
    await migrateToLatest(database.db, options.onMigration);
  } catch (error) {
    await database.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const hot = database.sqlite ? new SqliteHotPaths(database.sqlite) : undefined;
  const repos = createRepositories(database.db, writeRunnerFor(database), hot);
  return {
    config,
    clock,
    database,
    repos,
    credentials: new AccountCache(repos.accounts, clock),
    keyring: new CardKeyring(repos.encryptionKeys, clock),
    processors: createProcessorRegistry(
      options.liveProcessor !== undefined ? options.liveProcessor : liveConnectorOf(config, options.logger),
    ),
    limiter: new FailureLimiter(clock),
  };
}

const liveConnectorOf = (config: Config, logger?: ConnectorLog) =>
  config.liveConnector ? new HttpAcquirer(config.liveConnector, logger) : null;

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
