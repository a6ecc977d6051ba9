import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { createProduct } from '../../../domain/products.ts';
import type { Services } from '../../../services.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import {
  ProductAmount,
  ProductDescription,
  ProductName,
  ProductOut,
  SuccessUrl,
  toProductOut,
} from './product-schema.ts';

export const CreateProductIn = Type.Object(
  {
    name: ProductName,
    description: Type.Optional(ProductDescription),
    amount: ProductAmount,
    currency: Type.String(),
    mode: Type.Optional(Type.Enum(['live', 'sandbox'])),
    success_url: Type.Optional(SuccessUrl),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateProductIn = Static<typeof CreateProductIn>;

export function registerCreateProduct(app: FastifyInstance, services: Services): void {
  app.post<{ Body: CreateProductIn }>(
    '/products',
    { schema: { body: CreateProductIn, response: { 200: ProductOut } } },
    async (request) => {
      const product = await createProduct(services.repos.products, services.clock, accountOf(request), request.body);
      return toProductOut(product, services.config.baseUrl);
    },
  );
}
