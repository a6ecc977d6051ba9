import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { updateProduct } from '../../../domain/products.ts';
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
import { ProductParams } from './retrieve-product.ts';

/** Mode and currency are fixed at creation, like an intent's; null clears an optional field. */
export const UpdateProductIn = Type.Object(
  {
    name: Type.Optional(ProductName),
    description: Type.Optional(Type.Union([ProductDescription, Type.Null()])),
    amount: Type.Optional(ProductAmount),
    active: Type.Optional(Type.Boolean()),
    success_url: Type.Optional(Type.Union([SuccessUrl, Type.Null()])),
  },
  { additionalProperties: false },
);
export type UpdateProductIn = Static<typeof UpdateProductIn>;

/** POST /api/v1/products/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const updateProductOperation = operation({
  operationId: 'updateProduct',
  summary: 'Update a product',
  tag: 'Products',
  requestExample: {
    amount: 700,
    active: true,
  },
});

export function registerUpdateProduct(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof ProductParams>; Body: UpdateProductIn }>(
    '/products/:id',
    {
      schema: {
        ...updateProductOperation,
        params: ProductParams,
        body: UpdateProductIn,
        response: { 200: ProductOut },
      },
    },
    async (request) => {
      const { products } = services.repos;
      const product = await updateProduct(
        products,
        services.clock,
        accountOf(request),
        request.params.id,
        request.body,
      );
      return toProductOut(product, services.config.baseUrl);
    },
  );
}
