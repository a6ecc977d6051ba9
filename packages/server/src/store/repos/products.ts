import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Mode, Page } from '../../domain/intents.ts';
import type { Product, ProductChanges, ProductId, ProductStore } from '../../domain/products.ts';
import type { AccountId } from '../../ids.ts';
import { olderThan, toPage } from '../keyset.ts';
import type { Database, ProductsTable } from '../schema.ts';

function toProduct(row: Selectable<ProductsTable>): Product {
  return {
    id: row.id as ProductId,
    accountId: row.account_id,
    mode: row.mode,
    name: row.name,
    description: row.description,
    amount: row.amount,
    currency: row.currency as 'USD',
    active: row.active === 1,
    successUrl: row.success_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function changedColumns(changes: ProductChanges, now: number): Updateable<ProductsTable> {
  const set: Updateable<ProductsTable> = { updated_at: now };
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.amount !== undefined) set.amount = changes.amount;
  if (changes.active !== undefined) set.active = changes.active ? 1 : 0;
  if (changes.successUrl !== undefined) set.success_url = changes.successUrl;
  return set;
}

export class ProductsRepository implements ProductStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(product: Product): Promise<void> {
    await this.#db
      .insertInto('products')
      .values({
        id: product.id,
        account_id: product.accountId,
        mode: product.mode,
        name: product.name,
        description: product.description,
        amount: product.amount,
        currency: product.currency,
        active: product.active ? 1 : 0,
        success_url: product.successUrl,
        created_at: product.createdAt,
        updated_at: product.updatedAt,
      })
      .execute();
  }

  async find(accountId: AccountId, id: string): Promise<Product | undefined> {
    const row = await this.#db
      .selectFrom('products')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toProduct(row);
  }

  async findForCheckoutAcrossAccounts(id: string): Promise<Product | undefined> {
    const row = await this.#db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toProduct(row);
  }

  async list(accountId: AccountId, limit: number, after?: Product, mode?: Mode): Promise<Page<Product>> {
    let query = this.#db
      .selectFrom('products')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (mode) query = query.where('mode', '=', mode);
    if (after) {
      query = query.where(olderThan(after));
    }
    const rows = await query.execute();
    return toPage(rows, limit, toProduct);
  }

  async update(accountId: AccountId, id: string, changes: ProductChanges, now: number): Promise<Product | undefined> {
    const result = await this.#db
      .updateTable('products')
      .set(changedColumns(changes, now))
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return undefined;
    return this.find(accountId, id);
  }
}
