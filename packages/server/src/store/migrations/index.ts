import type { Migration, MigrationProvider } from 'kysely/migration';
import * as m0001 from './0001-accounts-and-intents.ts';
import * as m0002 from './0002-payments-transactions-events.ts';
import * as m0003 from './0003-refunds.ts';
import * as m0004 from './0004-webhooks.ts';
import * as m0005 from './0005-products.ts';
import * as m0006 from './0006-pending-attempts-index.ts';
import * as m0010 from './0010-dashboard.ts';
import * as m0020 from './0020-secrets-at-rest.ts';
import * as m0021 from './0021-rate-counters.ts';
import * as m0030 from './0030-card-ciphertext-uses.ts';
import * as m0031 from './0031-checkout-start-windows.ts';
import * as m0040 from './0040-processor-references.ts';
import * as m0050 from './0050-dashboard-payments-and-form-uses.ts';
import * as m0080 from './0080-idempotency-keys-on-writes.ts';
import * as m0090 from './0090-unsent-refunds-index.ts';
import * as m0100 from './0100-acquirer-follow-ups.ts';
import * as m0110 from './0110-sessions-and-audit-trail.ts';
import * as m0140 from './0140-cancel-and-manual-capture.ts';
import * as m0141 from './0141-captured-part-of-an-authorization.ts';
import * as m0142 from './0142-refunds-as-objects.ts';
import * as m0160 from './0160-daily-totals.ts';
import * as m0161 from './0161-payment-status-filter-indexes.ts';

/** Every migration, in order. A new migration is a new file and a new line here; never edit an old one. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-accounts-and-intents': m0001,
  '0002-payments-transactions-events': m0002,
  '0003-refunds': m0003,
  '0004-webhooks': m0004,
  '0005-products': m0005,
  '0006-pending-attempts-index': m0006,
  '0010-dashboard': m0010,
  '0030-card-ciphertext-uses': m0030,
  '0031-checkout-start-windows': m0031,
  '0020-secrets-at-rest': m0020,
  '0021-rate-counters': m0021,
  '0040-processor-references': m0040,
  '0050-dashboard-payments-and-form-uses': m0050,
  '0080-idempotency-keys-on-writes': m0080,
  '0090-unsent-refunds-index': m0090,
  '0100-acquirer-follow-ups': m0100,
  '0110-sessions-and-audit-trail': m0110,
  '0140-cancel-and-manual-capture': m0140,
  '0141-captured-part-of-an-authorization': m0141,
  '0142-refunds-as-objects': m0142,
  '0160-daily-totals': m0160,
  '0161-payment-status-filter-indexes': m0161,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
