import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { createProduct } from '../../../domain/products.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import {
  ProductAmount,
  ProductDescription,
  ProductName,
  ProductOut,
  SuccessUrl,
  toProductOut,
} from './product-schema.ts';
import { ModeEnum } from './schema-parts.ts';

export const CreateProductIn = Type.Object(
  {
    name: ProductName,
    description: Type.Optional(ProductDescription),
    amount: ProductAmount,
    currency: Type.String(),
    mode: Type.Optional(ModeEnum),
    success_url: Type.Optional(SuccessUrl),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateProductIn = Static<typeof CreateProductIn>;

/** POST /api/v1/products: its public contract, with the schemas below (docs/openapi.json). */
export const createProductOperation = operation({
  operationId: 'createProduct',
  summary: 'Create a product',
  tag: 'Products',
  requestExample: {
    name: 'Sticker pack',
    amount: 500,
    currency: 'USD',
    mode: 'sandbox',
  },
});

export function registerCreateProduct(app: FastifyInstance, services: Services): void {
  app.post<{ Body: CreateProductIn }>(
    '/products',
    { schema: { ...createProductOperation, body: CreateProductIn, response: { 200: ProductOut } } },
    async (request) => {
      const product = await createProduct(services.repos.products, services.clock, accountOf(request), request.body);
      return toProductOut(product, services.config.baseUrl);
    },
  );
}
