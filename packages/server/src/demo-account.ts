import { type AccountWithKeys, createAccount } from './domain/accounts.ts';
import { createProduct, type Product } from './domain/products.ts';
import type { Services } from './services.ts';
import type { Engine } from './store/database.ts';

export interface DemoAccount extends AccountWithKeys {
  /** A sandbox product, so the hosted checkout page can be opened and paid at once. */
  product: Product;
}

/**
 * Whether a first start makes the demo account (decision 0074): on the embedded default
 * (OBOLUS_DATABASE_URL unset) or when asked with `serve --demo` on a SQLite file; never on
 * PostgreSQL, which is a production database: an active account with a printed key there is
 * a door left open.
 */
export function wantsDemoAccount(engine: Engine, databaseUrlSet: boolean, asked: boolean): boolean {
  if (engine === 'postgres') {
    if (asked)
      throw new Error(
        '--demo is for the embedded SQLite database only; on PostgreSQL create accounts with `obolus accounts create`',
      );
    return false;
  }
  return asked || !databaseUrlSet;
}

/**
 * On the very first start (no account at all) a demo account is made so that the
 * printed curl command and checkout page work at once. Never again after that: its secret
 * key exists only as a digest, and `obolus keys roll` issues a new one.
 */
export async function ensureDemoAccount(services: Services): Promise<DemoAccount | null> {
  if ((await services.repos.accounts.count()) > 0) return null;
  const created = await createAccount(services.repos.accounts, services.clock, {
    name: 'Demo Store',
    email: 'demo@example.com',
  });
  const product = await createProduct(services.repos.products, services.clock, created.account, {
    name: 'Obolus demo mug',
    description: 'A sandbox product: pay with 4242 4242 4242 4242',
    amount: 1500,
    currency: 'USD',
    mode: 'sandbox',
  });
  return { ...created, product };
}
