import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { CardKeyring } from './crypto/card-keyring.ts';
import { openSecretBox } from './crypto/master-key.ts';
import type { ChallengeDeps } from './domain/payments/challenge.ts';
import { FailureLimiter } from './domain/payments/failure-limiter.ts';
import type { Services } from './http/services.ts';
import { type ConnectorLog, HttpAcquirer } from './processors/http-acquirer.ts';
import type { Processor } from './processors/processor.ts';
import { createProcessorRegistry } from './processors/registry.ts';
import { AccountCache } from './store/account-cache.ts';
import { isPostgresUrl, migrateToLatest, openDatabase } from './store/database.ts';
import { resealSecrets } from './store/repos/sealed-secrets.ts';
import { createRepositories } from './store/repositories.ts';
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
  const secrets = openSecretBox(
    config.masterKey,
    config.databaseUrl,
    isPostgresUrl(config.databaseUrl) ? 'postgres' : 'sqlite',
  );
  const database = openDatabase(config.databaseUrl, options.schema ? { schema: options.schema } : {});
  try {
    await migrateToLatest(database.db, options.onMigration);
    // Secrets written before migration 0020 are sealed on the first start after it.
    await resealSecrets(database.db, secrets, true);
  } catch (error) {
    await database.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const repos = createRepositories(database.db, secrets, writeRunnerFor(database.engine, database.db));
  return {
    config,
    clock,
    database,
    secrets,
    repos,
    credentials: new AccountCache(repos.accounts, clock),
    keyring: new CardKeyring(repos.encryptionKeys, clock),
    processors: createProcessorRegistry(
      options.liveProcessor !== undefined ? options.liveProcessor : liveConnectorOf(config, options.logger),
    ),
    limiter: new FailureLimiter(repos.rateCounters, clock),
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
    usedCiphertexts: repos.cardCiphertextUses,
    processors: services.processors,
  };
}
