import type { Kysely } from 'kysely';
import { AccountsRepository } from './repos/accounts.ts';
import { EventsRepository } from './repos/events.ts';
import { IdempotencyRepository } from './repos/idempotency.ts';
import { IntentsRepository } from './repos/intents.ts';
import { TransactionsRepository } from './repos/transactions.ts';
import type { Database } from './schema.ts';

export interface Repositories {
  accounts: AccountsRepository;
  intents: IntentsRepository;
  idempotency: IdempotencyRepository;
  transactions: TransactionsRepository;
  events: EventsRepository;
}

export function createRepositories(db: Kysely<Database>): Repositories {
  return {
    accounts: new AccountsRepository(db),
    intents: new IntentsRepository(db),
    idempotency: new IdempotencyRepository(db),
    transactions: new TransactionsRepository(db),
    events: new EventsRepository(db),
  };
}
