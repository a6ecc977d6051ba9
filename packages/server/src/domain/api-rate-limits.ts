import { SECOND } from '../clock.ts';
import { clientNetwork } from './client-network.ts';
import { ApiError } from './errors.ts';
import type { WindowLimiter } from './shared-windows.ts';

/** Requests per second of the merchant API (decision 0150); 0 switches a limit off. */
export interface ApiRateLimits {
  /** Per secret key, requests that are not sandbox ones. */
  live: number;
  /** Per secret key, requests that name the sandbox: `"mode": "sandbox"`, or a /sandbox/ path. */
  sandbox: number;
  /** Per client network (an IPv4 address, an IPv6 /64), every request, before its key is checked. */
  address: number;
  /** How often each process adds its counts to the shared totals (PostgreSQL). */
  syncMs: number;
}

/** Stripe's figures for the keys; for addresses, ten integrations at full speed behind one NAT. */
export const DEFAULT_API_RATE_LIMITS: ApiRateLimits = { live: 100, sandbox: 25, address: 1000, syncMs: 100 };

export const API_RATE_WINDOW_MS = SECOND;

export type ApiMode = 'live' | 'sandbox';

/** Counts API requests against the configured limits; throws `rate_limit` when one is spent. */
export class ApiRateLimiter {
  readonly #windows: WindowLimiter;
  readonly #limits: ApiRateLimits;

  constructor(windows: WindowLimiter, limits: ApiRateLimits) {
    this.#windows = windows;
    this.#limits = limits;
  }

  /** Before the key is looked at: a flood from one network is refused without a lookup. */
  admitAddress(address: string): void {
    if (this.#limits.address === 0) return;
    const waitMs = this.#windows.take('api_address', clientNetwork(address), this.#limits.address);
    if (waitMs > 0) throw limited(waitMs, 'Too many requests from your network');
  }

  /** `key`: what names the secret key (part of its digest), whether it is valid or not. */
  admitKey(key: string, mode: ApiMode): void {
    const limit = this.#limits[mode];
    if (limit === 0) return;
    const waitMs = this.#windows.take(`api_${mode}`, key, limit);
    if (waitMs > 0) throw limited(waitMs, `Too many ${mode} requests with this secret key`);
  }
}

function limited(waitMs: number, what: string): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / SECOND));
  return new ApiError(
    'rate_limit',
    `${what}: the limit is per second. Retry after ${seconds} s, with the same Idempotency-Key for a POST.`,
    undefined,
    seconds,
  );
}
