import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { CardKeyring } from '../crypto/card-keyring.ts';
import type { SecretBox } from '../crypto/master-key.ts';
import type { ApiRateLimiter } from '../domain/api-rate-limits.ts';
import type { FailureLimiter } from '../domain/payments/failure-limiter.ts';
import type { ProcessorRegistry } from '../domain/payments/ports.ts';
import type { WindowLimiter } from '../domain/shared-windows.ts';
import type { AccountCache } from '../store/account-cache.ts';
import type { DatabaseHandle } from '../store/database.ts';
import type { Repositories } from '../store/repositories.ts';

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
