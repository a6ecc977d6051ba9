import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { retrieveProduct } from '../../../domain/products.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { ProductOut, toProductOut } from './product-schema.ts';

export const ProductParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** GET /api/v1/products/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const retrieveProductOperation = operation({
  operationId: 'retrieveProduct',
  summary: 'Retrieve a product',
  tag: 'Products',
});

export function registerRetrieveProduct(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof ProductParams> }>(
    '/products/:id',
    { schema: { ...retrieveProductOperation, params: ProductParams, response: { 200: ProductOut } } },
    async (request) => {
      const product = await retrieveProduct(services.repos.products, accountOf(request), request.params.id);
      return toProductOut(product, services.config.baseUrl);
    },
  );
}
