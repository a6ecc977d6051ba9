import type { Kysely } from 'kysely';
import type { UsedCiphertexts } from '../../domain/payments/card-binding.ts';
import type { CiphertextUse } from '../../domain/payments/ports.ts';
import type { Database } from '../schema.ts';
import { TransactionPerWrite, type WriteRunner } from '../write-runner.ts';

/** Inserts a use inside `trx`; false, inserting nothing, when its `jti` was used before. */
export async function recordCiphertextUse(trx: Kysely<Database>, use: CiphertextUse): Promise<boolean> {
  const inserted = await trx
    .insertInto('card_ciphertext_uses')
    .values({
      jti: use.jti,
      account_id: use.accountId,
      payment_intent_id: use.paymentIntentId,
      used_at: use.usedAt,
      expires_at: use.expiresAt,
    })
    .onConflict((oc) => oc.column('jti').doNothing())
    .executeTakeFirst();
  return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** The replay cache of card ciphertexts: in the database, so every process sees every use. */
export class CardCiphertextUsesRepository implements UsedCiphertexts {
  readonly #db: Kysely<Database>;
  readonly #writes: WriteRunner;
  constructor(db: Kysely<Database>, writes: WriteRunner = new TransactionPerWrite(db)) {
    this.#db = db;
    this.#writes = writes;
  }

  /** Records a use on its own (tests; a confirm records it with its attempt, PaymentsRepository). */
  async claim(use: CiphertextUse): Promise<boolean> {
    return this.#writes.run((trx) => recordCiphertextUse(trx, use));
  }

  async pruneExpired(before: number): Promise<number> {
    const result = await this.#db
      .deleteFrom('card_ciphertext_uses')
      .where('expires_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
