import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { ConnectorLog } from './connectors/connector-log.ts';
import { createLiveConnector } from './connectors/live.ts';
import { createProcessorRegistry } from './connectors/registry.ts';
import { CardKeyring } from './crypto/card-keyring.ts';
import { openSecretBox, type SecretBox } from './crypto/master-key.ts';
import { API_RATE_WINDOW_MS, ApiRateLimiter } from './domain/api-rate-limits.ts';
import type { ChallengeDeps } from './domain/payments/challenge.ts';
import { FailureLimiter } from './domain/payments/failure-limiter.ts';
import type { Processor, ProcessorRegistry } from './domain/payments/ports.ts';
import type { RefundDeps } from './domain/refunds.ts';
import { WindowLimiter } from './domain/shared-windows.ts';
import { newProcessId } from './ids.ts';
import { AccountCache } from './store/account-cache.ts';
import { type DatabaseHandle, isPostgresUrl, migrateToLatest, openDatabase } from './store/database.ts';
import { refreshPlannerStatistics } from './store/planner-statistics.ts';
import { PostgresHotPaths } from './store/postgres-hot-paths.ts';
import { migrationTimeouts } from './store/postgres-pool.ts';
import { resealSecrets } from './store/repos/sealed-secrets.ts';
import type { Repositories } from './store/repositories.ts';
import { createRepositories } from './store/repositories.ts';
import { SqliteHotPaths } from './store/sqlite-hot-paths.ts';
import { writeRunnerFor } from './store/write-runner.ts';

/** What route handlers may use: the store's repositories, the clock and the configuration. */
export interface Services {
  config: Config;
  clock: Clock;
  database: DatabaseHandle;
  /** Seals secrets at rest under the master key (crypto/master-key.ts). */
  secrets: SecretBox;
  repos: Repositories;
  /** Secret keys and accounts that authenticated recently (a few seconds). */
  credentials: AccountCache;
  /** Card-encryption keys (JWKS, decryption). */
  keyring: CardKeyring;
  processors: ProcessorRegistry;
  /** Failed payments per client network (card-testing protection), shared by every process. */
  limiter: FailureLimiter;
  /** The merchant API's requests per second, counted in memory and synced across processes (decision 0150). */
  apiLimits: ApiRateLimiter;
  /** Its in-memory windows; `obolus serve` syncs them with the database on PostgreSQL. */
  apiWindows: WindowLimiter;
}

export interface OpenServicesOptions {
  clock?: Clock;
  schema?: string;
  onMigration?: (name: string) => void;
  /**
   * The live connector; null means live payments are refused (never simulated). Left out:
   * the connector OBOLUS_LIVE_CONNECTOR names, when set (connectors/live.ts).
   */
  liveProcessor?: Processor | null;
  /** Where the live connector reports failed calls (no card data, no key). */
  logger?: ConnectorLog;
  /** Told when a PostgreSQL connection breaks (the database went away); requests meanwhile get 503s. */
  onConnectionLost?: (error: Error) => void;
}

/** Opens the database named by the configuration, brings its schema up to date, and wires the repositories. */
export async function openServices(config: Config, options: OpenServicesOptions = {}): Promise<Services> {
  const secrets = openSecretBox(
    config.masterKey,
    config.databaseUrl,
    isPostgresUrl(config.databaseUrl) ? 'postgres' : 'sqlite',
  );
  const database = openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    ...(options.schema ? { schema: options.schema } : {}),
    timeouts: config.databaseTimeouts,
    ...(options.onConnectionLost ? { onConnectionLost: options.onConnectionLost } : {}),
  });
  try {
    await migrate(database, config, secrets, options);
  } catch (error) {
    await database.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const hot = database.sqlite
    ? new SqliteHotPaths(database.sqlite)
    : database.postgres && new PostgresHotPaths(database.postgres.pool);
  const repos = createRepositories(
    database.db,
    secrets,
    writeRunnerFor(database),
    hot,
    config.recovery?.idempotencyLockMs,
  );
  // One process on SQLite: its memory is the whole count. On PostgreSQL the counts are synced.
  const apiWindows = new WindowLimiter(clock, {
    windowMs: API_RATE_WINDOW_MS,
    processId: newProcessId(),
    ...(database.engine === 'sqlite' ? {} : { shared: repos.rateCounters }),
  });
  return {
    config,
    clock,
    database,
    secrets,
    repos,
    credentials: new AccountCache(repos.accounts, clock),
    keyring: new CardKeyring(repos.encryptionKeys, clock),
    processors: createProcessorRegistry(
      options.liveProcessor !== undefined ? options.liveProcessor : await liveConnectorOf(config, options.logger),
    ),
    limiter: new FailureLimiter(repos.rateCounters, clock),
    apiLimits: new ApiRateLimiter(apiWindows, config.apiRateLimits),
    apiWindows,
  };
}

/**
 * Brings the schema up to date and seals secrets written before migration 0020. On PostgreSQL
 * through a connection of its own without the statement timeout: a migration may build an
 * index over a large table, or wait for another process's migration lock.
 */
async function migrate(database: DatabaseHandle, config: Config, secrets: SecretBox, options: OpenServicesOptions) {
  const own =
    database.engine === 'postgres'
      ? openDatabase(config.databaseUrl, {
          poolSize: 1,
          ...(options.schema ? { schema: options.schema } : {}),
          timeouts: migrationTimeouts(config.databaseTimeouts),
        })
      : database;
  try {
    await migrateToLatest(own.db, options.onMigration);
    await resealSecrets(own.db, secrets, true);
    if (own.sqlite) refreshPlannerStatistics(own.sqlite.writer, true);
  } finally {
    if (own !== database) await own.close();
  }
}

const liveConnectorOf = async (config: Config, logger?: ConnectorLog) =>
  config.liveConnector ? await createLiveConnector(config.liveConnector, logger) : null;

/** The payment use cases' dependencies, taken from the process's services. */
/** What refunds need, the same for the API and the dashboard. */
export function refundDeps(services: Services): RefundDeps {
  const { repos, processors } = services;
  return { transactions: repos.transactions, refunds: repos.refunds, processors };
}

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
    captureWindowMs: services.config.captureWindowMs,
    keyring: services.keyring,
    processors: services.processors,
    products: repos.products,
    challengeReturnUrl: (token) => `${services.config.baseUrl}/embed/v1/challenge/${token}/return`,
  };
}
