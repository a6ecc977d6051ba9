import type { Logger } from 'pino';
import { HOUR, MINUTE } from '../../clock.ts';
import { webhookPolicy } from '../../config.ts';
import { EVENT_RETENTION_MS } from '../../domain/event-queries.ts';
import type { Mode } from '../../domain/intents.ts';
import {
  type Attempt,
  attemptDelivery,
  type ClaimedDelivery,
  SEND_CAPS,
  type SendCaps,
  type WebhookSender,
} from '../../domain/webhooks/deliveries.ts';
import { loopbackAllowed } from '../../domain/webhooks/endpoints.ts';
import { fanOutEvents } from '../../domain/webhooks/fanout.ts';
import type { Services } from '../../services.ts';
import { FailureLog } from '../failure-log.ts';
import { HttpWebhookSender, type Resolver } from './transport.ts';

export interface DispatcherOptions {
  /** How webhooks leave; the HTTP sender by default. */
  sender?: WebhookSender;
  /** DNS for the default sender (tests stub it). */
  resolve?: Resolver;
  /** Extra trusted CAs for the default sender (tests). */
  ca?: string | Buffer;
  logger?: Logger;
  /** Deliveries this process sends at once, at most; each is sent on its own. */
  maxInFlight?: number;
  /** Deliveries in flight per endpoint and per account, across processes (SEND_CAPS by default). */
  caps?: SendCaps;
  /** How long a claimed delivery is this process's (LEASE_MS; shorter in crash tests). */
  leaseMs?: number;
}

/**
 * A lease outlives any attempt (10 s timeout) many times over, so only a dispatcher that
 * died lets its lease run out; its work is then picked up by another, at least once.
 */
export const LEASE_MS = MINUTE;
const PRUNE_EVERY_MS = HOUR;

export interface RunReport {
  events: number;
  deliveries: number;
  attempts: Attempt[];
}

/**
 * The webhook worker of one process: fans new outbox events out into deliveries and sends
 * the due ones. Any number may run, in `obolus serve` and `obolus worker` processes alike.
 */
export class WebhookDispatcher {
  readonly #services: Services;
  /** Per endpoint mode: sandbox endpoints may reach loopback on a developer machine (decision 0090). */
  readonly #senders: Record<Mode, WebhookSender>;
  readonly #logger: Logger | undefined;
  readonly #failures: FailureLog | undefined;
  readonly #maxInFlight: number;
  readonly #caps: SendCaps;
  readonly #leaseMs: number;
  readonly #inFlight = new Set<Promise<Attempt | null>>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;
  #lastPrune = 0;

  constructor(services: Services, options: DispatcherOptions = {}) {
    this.#services = services;
    const policy = webhookPolicy(services.config);
    const sender = (mode: Mode) =>
      options.sender ??
      new HttpWebhookSender({
        allowLoopback: loopbackAllowed(policy, mode),
        ...(options.resolve ? { resolve: options.resolve } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
      });
    this.#senders = { live: sender('live'), sandbox: sender('sandbox') };
    this.#logger = options.logger;
    this.#failures =
      options.logger && new FailureLog(options.logger, 'webhook dispatch failed', 'webhook dispatch works again');
    this.#maxInFlight = options.maxInFlight ?? 64;
    this.#caps = options.caps ?? SEND_CAPS;
    this.#leaseMs = options.leaseMs ?? LEASE_MS;
  }

  /**
   * One pass that waits for its sends: every unfanned event fanned out, every due delivery
   * attempted once (tests and `obolus worker --once`-style use).
   */
  async runOnce(): Promise<RunReport> {
    const report: RunReport = { events: 0, deliveries: 0, attempts: [] };
    await this.#fanOut(report);
    for (;;) {
      const idle = this.#inFlight.size === 0;
      const launched = await this.#launchDue(report);
      // Done only when a claim begun with nothing in flight finds nothing: sends finishing
      // while a claim runs free capped slots (per endpoint, per account) it did not see.
      if (idle && launched === 0) return report;
      if (launched === 0 && this.#inFlight.size > 0) await Promise.race(this.#inFlight);
    }
  }

  async #fanOut(report: RunReport): Promise<void> {
    const { repos, clock } = this.#services;
    for (;;) {
      const fanned = await fanOutEvents(repos.webhookFanout, clock, this.#leaseMs, 100);
      report.events += fanned.events;
      report.deliveries += fanned.deliveries;
      if (fanned.events < 100) return;
    }
  }

  /**
   * Leases what fits in the free slots and sends each delivery on its own: a slow receiver
   * holds its own slots, never a batch. Answers how many it started.
   */
  async #launchDue(report?: RunReport): Promise<number> {
    const room = this.#maxInFlight - this.#inFlight.size;
    if (this.#stopped || room <= 0) return 0;
    const { repos, clock } = this.#services;
    const claims = await repos.webhookDeliveries.claimDueAcrossAccounts(clock.now(), this.#leaseMs, room, this.#caps);
    for (const claim of claims) this.#send(claim, report);
    return claims.length;
  }

  #send(claim: ClaimedDelivery, report?: RunReport): void {
    const { repos, clock } = this.#services;
    const sending: Promise<Attempt | null> = attemptDelivery(
      repos.webhookDeliveries,
      this.#senders[claim.endpoint.mode],
      clock,
      claim,
    )
      .then((attempt) => {
        this.#log(attempt);
        report?.attempts.push(attempt);
        return attempt;
      })
      .catch((error) => {
        // The lease runs out and another pass tries again.
        this.#logger?.error({ err: error, webhook_delivery: claim.delivery.id }, 'webhook attempt not recorded');
        return null;
      })
      .finally(() => this.#inFlight.delete(sending));
    this.#inFlight.add(sending);
  }

  /** Drops events past their 30-day retention, with their deliveries and attempts. */
  async pruneOnce(): Promise<number> {
    const removed = await this.#services.repos.eventFeed.pruneBefore(this.#services.clock.now() - EVENT_RETENTION_MS);
    if (removed > 0) this.#logger?.info({ removed }, 'pruned events past retention');
    return removed;
  }

  /**
   * Every `pollMs` until stop(): fans out, and fills the free send slots, without waiting
   * for sends under way. A tick that fails is logged and the next one tries again.
   */
  start(pollMs: number): void {
    const tick = async () => {
      this.#running = this.#pass();
      await this.#running;
      if (!this.#stopped) this.#timer = setTimeout(tick, pollMs);
    };
    this.#timer = setTimeout(tick, 0);
  }

  async #pass(): Promise<void> {
    try {
      await this.#fanOut({ events: 0, deliveries: 0, attempts: [] });
      await this.#launchDue();
      if (Date.now() - this.#lastPrune >= PRUNE_EVERY_MS) {
        this.#lastPrune = Date.now();
        await this.pruneOnce();
      }
      this.#failures?.succeeded();
    } catch (error) {
      this.#failures?.failed(error);
    }
  }

  /** Stops the loop and waits for the pass and the sends in progress, so the database can be closed after. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    await Promise.all(this.#inFlight);
  }

  #log(attempt: Attempt): void {
    const fields = {
      webhook_endpoint: attempt.endpointId,
      webhook_delivery: attempt.deliveryId,
      event: attempt.eventId,
      status: attempt.statusCode,
      ms: attempt.latencyMs,
    };
    if (attempt.succeeded) this.#logger?.debug(fields, 'webhook delivered');
    else this.#logger?.info({ ...fields, error: attempt.error }, 'webhook attempt failed');
  }
}
