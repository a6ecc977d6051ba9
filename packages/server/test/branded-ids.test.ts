import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely, Selectable } from 'kysely';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Account, setAccountStatus } from '../src/domain/accounts.ts';
import type { PaymentIntent } from '../src/domain/intent-model.ts';
import type { Refund, Transaction } from '../src/domain/transactions.ts';
import { type AccountId, type IntentId, newAccountId, type TransactionId } from '../src/ids.ts';
import type { Repositories } from '../src/store/repositories.ts';
import type { Database, PaymentIntentsTable } from '../src/store/schema.ts';

/**
 * Compiled by `npm run lint` (its tsc covers test/), never called: each `@ts-expect-error`
 * fails the lint if the line under it compiles, that is if a plain string were taken where an
 * account id is required (decision 0293).
 */
export function plainStringsAreRefused(repos: Repositories, db: Kysely<Database>): void {
  const plain: string = 'acct_0000000000000000';
  // @ts-expect-error a plain string is not an AccountId
  const id: AccountId = plain;
  // @ts-expect-error the store's reads are scoped by an AccountId
  void repos.refunds.find(plain, 're_x');
  // @ts-expect-error and its writes
  void repos.idempotency.claim(plain, 'key', 'hash', 0);
  // @ts-expect-error the domain's operations take one too
  void setAccountStatus(repos.accounts, plain, 'inactive');
  // @ts-expect-error a query cannot be scoped by a plain string: the column is typed AccountId
  void db.selectFrom('payment_intents').selectAll().where('account_id', '=', plain);
  // @ts-expect-error nor a row written with one
  void db.updateTable('audit_events').set({ account_id: plain });
  // @ts-expect-error an intent id is not a transaction id
  const tx: TransactionId = 'x' as IntentId;
  void [id, tx];
}

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The only files that may turn a plain string into a branded id (decision 0293). */
const EDGES = [
  // Where new ids are made.
  'ids.ts',
  // The CLI's account arguments.
  'cli/context.ts',
  // Row mappers: intent and transaction ids read from their columns (account ids need no cast,
  // schema.ts types the columns).
  'store/intent-rows.ts',
  'store/repos/refunds.ts',
  'store/repos/transactions.ts',
];

describe('branded ids (decision 0293)', () => {
  it('come out of the store branded, without a cast in between', () => {
    expectTypeOf<Selectable<PaymentIntentsTable>['account_id']>().toEqualTypeOf<AccountId>();
    expectTypeOf<Account['id']>().toEqualTypeOf<AccountId>();
    expectTypeOf<PaymentIntent['accountId']>().toEqualTypeOf<AccountId>();
    expectTypeOf<PaymentIntent['id']>().toEqualTypeOf<IntentId>();
    expectTypeOf<Transaction['id']>().toEqualTypeOf<TransactionId>();
    expectTypeOf<Refund['transactionId']>().toEqualTypeOf<TransactionId>();
    // Still strings wherever a string is wanted (logs, URLs, JSON).
    expectTypeOf<AccountId>().toExtend<string>();
    const id = newAccountId();
    expectTypeOf(id).toEqualTypeOf<AccountId>();
    expect(id).toMatch(/^acct_[0-9A-Za-z]{16}$/);
  });

  it('are cast from plain strings only at the edges', () => {
    const casts = new Map<string, number>();
    for (const file of sourceFiles(SRC)) {
      const found = readFileSync(file, 'utf8').match(/\bas (?:unknown as )?(?:AccountId|IntentId|TransactionId)\b/g);
      if (found) casts.set(relative(SRC, file).replaceAll('\\', '/'), found.length);
    }
    // The scan sees the casts that are there (ids.ts makes three kinds of ids)...
    expect(casts.get('ids.ts')).toBe(3);
    // ...and none outside the edges.
    expect([...casts.keys()].filter((file) => !EDGES.includes(file))).toEqual([]);
  });
});
