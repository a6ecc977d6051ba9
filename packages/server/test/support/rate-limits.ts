import type { ApiRateLimits } from '../../src/domain/api-rate-limits.ts';

/** API rate limits for a test: only those it sets (0 is no limit), synced every 100 ms. */
export const limits = (set: Partial<ApiRateLimits>): ApiRateLimits => ({
  live: 0,
  sandbox: 0,
  address: 0,
  syncMs: 100,
  ...set,
});
