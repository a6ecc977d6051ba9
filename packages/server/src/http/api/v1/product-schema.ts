import { type Static, Type } from 'typebox';
import type { Product } from '../../../domain/products.ts';
import { Amount, CurrencyOut, ModeEnum, nullable, unixSeconds } from './schema-parts.ts';

/** The product fields a merchant sets, with the intents' limits (spec §8). */
export const ProductName = Type.String({ minLength: 1, maxLength: 100 });
export const ProductDescription = Type.String({ minLength: 5, maxLength: 100 });
export const ProductAmount = Amount();
export const SuccessUrl = Type.String({ minLength: 1, maxLength: 2000 });

/** The merchant-visible product: create, retrieve, update and list all answer with this. */
export const ProductOut = Type.Object({
  id: Type.String(),
  object: Type.Literal('product'),
  name: Type.String(),
  description: nullable(Type.String()),
  amount: Type.Integer(),
  currency: CurrencyOut,
  mode: ModeEnum,
  active: Type.Boolean(),
  success_url: nullable(Type.String()),
  url: Type.String({ description: 'The hosted checkout page of this product' }),
  created: Type.Integer({ description: 'Unix seconds' }),
  updated: Type.Integer({ description: 'Unix seconds' }),
});
export type ProductOut = Static<typeof ProductOut>;

export function toProductOut(product: Product, baseUrl: string): ProductOut {
  return {
    id: product.id,
    object: 'product',
    name: product.name,
    description: product.description,
    amount: product.amount,
    currency: product.currency,
    mode: product.mode,
    active: product.active,
    success_url: product.successUrl,
    url: `${baseUrl}/${product.id}`,
    created: unixSeconds(product.createdAt),
    updated: unixSeconds(product.updatedAt),
  };
}
