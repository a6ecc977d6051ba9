import type { Kysely } from 'kysely';
import type { SecretBox } from '../crypto/master-key.ts';
import type { AttemptHotPaths } from './attempt-hot-paths.ts';
import type { HotPaths } from './hot-paths.ts';
import { AccountsRepository } from './repos/accounts.ts';
import { AllowedOriginsRepository } from './repos/allowed-origins.ts';
import { AuditRepository } from './repos/audit.ts';
import { CardCiphertextUsesRepository } from './repos/card-ciphertext-uses.ts';
import { ChargebacksRepository } from './repos/chargebacks.ts';
import { CheckoutStartWindowsRepository } from './repos/checkout-start-windows.ts';
import { DashboardRepository } from './repos/dashboard.ts';
import { DashboardStatsRepository } from './repos/dashboard-stats.ts';
import { EncryptionKeysRepository } from './repos/encryption-keys.ts';
import { EventFeedRepository } from './repos/event-feed.ts';
import { FormUsesRepository } from './repos/form-uses.ts';
import { IdempotencyRepository } from './repos/idempotency.ts';
import { IntentsRepository } from './repos/intents.ts';
import { PaymentListRepository } from './repos/payment-list.ts';
import { PaymentsRepository } from './repos/payments.ts';
import { ProcessorEventsRepository } from './repos/processor-events.ts';
import { ProductsRepository } from './repos/products.ts';
import { RateCountersRepository } from './repos/rate-counters.ts';
import { RefundsRepository } from './repos/refunds.ts';
import { TransactionsRepository } from './repos/transactions.ts';
import { WebhookAttemptsRepository } from './repos/webhook-attempts.ts';
import { WebhookDeliveriesRepository } from './repos/webhook-deliveries.ts';
import { WebhookEndpointsRepository } from './repos/webhook-endpoints.ts';
import { WebhookFanoutRepository } from './repos/webhook-fanout.ts';
import type { Database } from './schema.ts';
import { TransactionPerWrite, type WriteRunner } from './write-runner.ts';

export interface Repositories {
  accounts: AccountsRepository;
  intents: IntentsRepository;
  idempotency: IdempotencyRepository;
  transactions: TransactionsRepository;
  payments: PaymentsRepository;
  encryptionKeys: EncryptionKeysRepository;
  /** The replay cache of card ciphertexts (docs/decisions/0080). */
  cardCiphertextUses: CardCiphertextUsesRepository;
  refunds: RefundsRepository;
  chargebacks: ChargebacksRepository;
  processorEvents: ProcessorEventsRepository;
  products: ProductsRepository;
  allowedOrigins: AllowedOriginsRepository;
  /** Hosted-checkout intents per client address (docs/decisions/0083). */
  checkoutStarts: CheckoutStartWindowsRepository;
  /** Fixed-window counters every process shares (rate limits). */
  rateCounters: RateCountersRepository;
  /** Webhooks (docs/webhooks.md): endpoints, fan-out, deliveries, attempt log, events API. */
  webhookEndpoints: WebhookEndpointsRepository;
  webhookFanout: WebhookFanoutRepository;
  webhookDeliveries: WebhookDeliveriesRepository;
  webhookAttempts: WebhookAttemptsRepository;
  eventFeed: EventFeedRepository;
  /** The merchant dashboard: passwords, sessions, failed sign-ins. */
  dashboard: DashboardRepository;
  dashboardStats: DashboardStatsRepository;
  /** The dashboard's Payments list (intents with their newest attempt) and its form tokens. */
  paymentList: PaymentListRepository;
  formUses: FormUsesRepository;
  /** The append-only audit trail (decision 0205). */
  audit: AuditRepository;
}

/**
 * `secrets` seals card-encryption keys and webhook secrets at rest (crypto/master-key.ts);
 * `writes` decides how the hot write paths commit: grouped on SQLite (store/write-runner.ts);
 * `hot` runs the hottest queries as prepared statements (store/hot-paths.ts).
 */
export function createRepositories(
  db: Kysely<Database>,
  secrets: SecretBox,
  writes: WriteRunner = new TransactionPerWrite(db),
  hot?: HotPaths & AttemptHotPaths,
  /** How long an Idempotency-Key claim is its holder's (IDEMPOTENCY_LOCK_MS; shorter in crash tests). */
  idempotencyLockMs?: number,
): Repositories {
  return {
    accounts: new AccountsRepository(db, hot),
    intents: new IntentsRepository(db, writes, hot),
    idempotency: new IdempotencyRepository(db, writes, idempotencyLockMs),
    transactions: new TransactionsRepository(db, hot),
    payments: new PaymentsRepository(db, writes, hot),
    cardCiphertextUses: new CardCiphertextUsesRepository(db, writes),
    encryptionKeys: new EncryptionKeysRepository(db, secrets),
    refunds: new RefundsRepository(db),
    chargebacks: new ChargebacksRepository(db),
    processorEvents: new ProcessorEventsRepository(db),
    products: new ProductsRepository(db),
    allowedOrigins: new AllowedOriginsRepository(db),
    checkoutStarts: new CheckoutStartWindowsRepository(db),
    rateCounters: new RateCountersRepository(db),
    webhookEndpoints: new WebhookEndpointsRepository(db, secrets),
    webhookFanout: new WebhookFanoutRepository(db, secrets),
    webhookDeliveries: new WebhookDeliveriesRepository(db, secrets),
    webhookAttempts: new WebhookAttemptsRepository(db),
    eventFeed: new EventFeedRepository(db),
    dashboard: new DashboardRepository(db),
    dashboardStats: new DashboardStatsRepository(db),
    paymentList: new PaymentListRepository(db),
    formUses: new FormUsesRepository(db),
    audit: new AuditRepository(db),
  };
}
