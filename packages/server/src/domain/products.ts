import type { Clock } from '../clock.ts';
import { type AccountId, randomBase62 } from '../ids.ts';
import type { Account } from './accounts.ts';
import { allowedOrigins, isAllowedOrigin, originOf } from './allowed-origins.ts';
import { ApiError, invalidParam } from './errors.ts';
import type { Mode, Page } from './intents.ts';

declare const productBrand: unique symbol;
export type ProductId = string & { readonly [productBrand]: 'ProductId' };

/** A catalog product: what the hosted checkout page at `/<id>` sells, at a fixed amount and mode. */
export interface Product {
  id: ProductId;
  accountId: AccountId;
  mode: Mode;
  name: string;
  description: string | null;
  /** Minor units, 1 to 99,999,999, as on intents. */
  amount: number;
  currency: 'USD';
  active: boolean;
  /** Where the hosted page sends the shopper after paying; only ever on an allowed origin. */
  successUrl: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Lengths, ranges and types are checked by the route schema before this point. */
export interface CreateProductIn {
  name: string;
  description?: string;
  amount: number;
  currency: string;
  mode?: Mode;
  success_url?: string;
  active?: boolean;
}

/** null clears an optional field. */
export interface UpdateProductIn {
  name?: string;
  description?: string | null;
  amount?: number;
  active?: boolean;
  success_url?: string | null;
}

export type ProductChanges = Partial<Pick<Product, 'name' | 'description' | 'amount' | 'active' | 'successUrl'>>;

export interface ProductStore {
  insert(product: Product): Promise<void>;
  find(accountId: AccountId, id: string): Promise<Product | undefined>;
  /** Newest first; `after` is a product of the same account the page starts after. */
  /** Newest first; only `mode`'s when given (the dashboard's sandbox / live switch). */
  list(accountId: AccountId, limit: number, after?: Product, mode?: Mode): Promise<Page<Product>>;
  /** Sets only the given columns (concurrent updates of other fields are kept); undefined when missing. */
  update(accountId: AccountId, id: string, changes: ProductChanges, now: number): Promise<Product | undefined>;
  /**
   * The one lookup without an account: the hosted page's address is the product id alone,
   * which is public the way a client key is (decisions/0030).
   */
  findForCheckoutAcrossAccounts(id: string): Promise<Product | undefined>;
}

export const PRODUCT_ID = /^prod_[0-9A-Za-z]{24}$/;
export const newProductId = () => `prod_${randomBase62(24)}` as ProductId;

export async function createProduct(
  store: ProductStore,
  clock: Clock,
  account: Account,
  input: CreateProductIn,
): Promise<Product> {
  if (input.currency.toUpperCase() !== 'USD') {
    throw invalidParam('currency', 'currency must be USD: the only currency in v1.');
  }
  const now = clock.now();
  const product: Product = {
    id: newProductId(),
    accountId: account.id,
    mode: input.mode ?? 'live',
    name: checkName(input.name),
    description: input.description ?? null,
    amount: input.amount,
    currency: 'USD',
    active: input.active ?? true,
    successUrl: input.success_url === undefined ? null : checkSuccessUrl(account, input.success_url),
    createdAt: now,
    updatedAt: now,
  };
  await store.insert(product);
  return product;
}

export async function retrieveProduct(store: ProductStore, account: Account, id: string): Promise<Product> {
  const product = await store.find(account.id, id);
  if (!product) throw missing(id, 'id');
  return product;
}

export async function listProducts(
  store: ProductStore,
  account: Account,
  limit: number,
  startingAfter?: string,
  mode?: Mode,
): Promise<Page<Product>> {
  let after: Product | undefined;
  if (startingAfter !== undefined) {
    after = await store.find(account.id, startingAfter);
    if (!after) throw missing(startingAfter, 'starting_after');
  }
  return store.list(account.id, limit, after, mode);
}

export async function updateProduct(
  store: ProductStore,
  clock: Clock,
  account: Account,
  id: string,
  input: UpdateProductIn,
): Promise<Product> {
  const changes: ProductChanges = {};
  if (input.name !== undefined) changes.name = checkName(input.name);
  if (input.description !== undefined) changes.description = input.description;
  if (input.amount !== undefined) changes.amount = input.amount;
  if (input.active !== undefined) changes.active = input.active;
  if (input.success_url !== undefined) {
    changes.successUrl = input.success_url === null ? null : checkSuccessUrl(account, input.success_url);
  }
  const product = await store.update(account.id, id, changes, clock.now());
  if (!product) throw missing(id, 'id');
  return product;
}

/** A product the hosted page may sell now: unknown, inactive and inactive-account products look alike. */
export async function productForCheckout(
  store: ProductStore,
  accounts: { find(id: string): Promise<Account | undefined> },
  id: string,
): Promise<{ product: Product; account: Account } | undefined> {
  if (!PRODUCT_ID.test(id)) return undefined;
  const product = await store.findForCheckoutAcrossAccounts(id);
  if (!product?.active) return undefined;
  const account = await accounts.find(product.accountId);
  if (account?.status !== 'active') return undefined;
  return { product, account };
}

/**
 * The success_url the hosted page may redirect to today: allowed origins can be removed
 * after the product was made, so this is checked again when the page is served.
 */
export function redirectTarget(product: Product, account: Account): string | null {
  return product.successUrl && isAllowedOrigin(account, product.successUrl) ? product.successUrl : null;
}

const missing = (id: string, param: string) => new ApiError('resource_missing', `No such product: '${id}'`, param);

function checkName(name: string): string {
  if (name.trim() === '') throw invalidParam('name', 'name must not be blank.');
  return name;
}

function checkSuccessUrl(account: Account, url: string): string {
  const origin = originOf(url);
  if (origin === null || new URL(url).username !== '' || new URL(url).password !== '') {
    throw invalidParam('success_url', 'success_url must be an absolute http(s) URL without credentials.');
  }
  if (!isAllowedOrigin(account, origin)) {
    const allowed = allowedOrigins(account);
    const known = allowed.length ? `one of: ${allowed.join(', ')}` : 'none yet (obolus origins set …)';
    throw invalidParam('success_url', `success_url must be on one of the account's allowed origins: ${known}.`);
  }
  return url;
}
