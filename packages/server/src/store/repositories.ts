import type { Kysely } from 'kysely';
import { AccountsRepository } from './repos/accounts.ts';
import { AllowedOriginsRepository } from './repos/allowed-origins.ts';
import { ChargebacksRepository } from './repos/chargebacks.ts';
import { EncryptionKeysRepository } from './repos/encryption-keys.ts';
import { EventFeedRepository } from './repos/event-feed.ts';
import { IdempotencyRepository } from './repos/idempotency.ts';
import { IntentsRepository } from './repos/intents.ts';
import { PaymentsRepository } from './repos/payments.ts';
import { ProductsRepository } from './repos/products.ts';
import { RefundsRepository } from './repos/refunds.ts';
import { TransactionsRepository } from './repos/transactions.ts';
import { WebhookAttemptsRepository } from './repos/webhook-attempts.ts';
import { WebhookDeliveriesRepository } from './repos/webhook-deliveries.ts';
import { WebhookEndpointsRepository } from './repos/webhook-endpoints.ts';
import { WebhookFanoutRepository } from './repos/webhook-fanout.ts';
import type { Database } from './schema.ts';
import type { SqliteHotPaths } from './sqlite-hot-paths.ts';
import { TransactionPerWrite, type WriteRunner } from './write-runner.ts';

export interface Repositories {
  accounts: AccountsRepository;
  intents: IntentsRepository;
  idempotency: IdempotencyRepository;
  transactions: TransactionsRepository;
  payments: PaymentsRepository;
  encryptionKeys: EncryptionKeysRepository;
  refunds: RefundsRepository;
  chargebacks: ChargebacksRepository;
  products: ProductsRepository;
  allowedOrigins: AllowedOriginsRepository;
  /** Webhooks (docs/webhooks.md): endpoints, fan-out, deliveries, attempt log, events API. */
  webhookEndpoints: WebhookEndpointsRepository;
  webhookFanout: WebhookFanoutRepository;
  webhookDeliveries: WebhookDeliveriesRepository;
  webhookAttempts: WebhookAttemptsRepository;
  eventFeed: EventFeedRepository;
}

/**
 * `writes` decides how the hot write paths commit: grouped on SQLite (store/write-runner.ts);
 * `hot`, on SQLite, runs the hottest queries as prepared statements (store/sqlite-hot-paths.ts).
 */
export function createRepositories(
  db: Kysely<Database>,
  writes: WriteRunner = new TransactionPerWrite(db),
  hot?: SqliteHotPaths,
): Repositories {
  return {
    accounts: new AccountsRepository(db, hot),
    intents: new IntentsRepository(db, writes, hot),
    idempotency: new IdempotencyRepository(db, writes),
    transactions: new TransactionsRepository(db, hot),
    payments: new PaymentsRepository(db, writes),
    encryptionKeys: new EncryptionKeysRepository(db),
    refunds: new RefundsRepository(db),
    chargebacks: new ChargebacksRepository(db),
    products: new ProductsRepository(db),
    allowedOrigins: new AllowedOriginsRepository(db),
    webhookEndpoints: new WebhookEndpointsRepository(db),
    webhookFanout: new WebhookFanoutRepository(db),
    webhookDeliveries: new WebhookDeliveriesRepository(db),
    webhookAttempts: new WebhookAttemptsRepository(db),
    eventFeed: new EventFeedRepository(db),
  };
}
