import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { DatabaseHandle } from '../store/database.ts';
import type { Repositories } from '../store/repositories.ts';

/** What route handlers may use: the store's repositories, the clock and the configuration. */
export interface Services {
  config: Config;
  clock: Clock;
  database: DatabaseHandle;
  repos: Repositories;
}
