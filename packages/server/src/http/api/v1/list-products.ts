import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listProducts } from '../../../domain/products.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { ListQuery } from './list-payment-intents.ts';
import { ProductOut, toProductOut } from './product-schema.ts';

const ProductListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ProductOut),
  has_more: Type.Boolean(),
});

/** GET /api/v1/products: its public contract, with the schemas below (docs/openapi.json). */
export const listProductsOperation = operation({
  operationId: 'listProducts',
  summary: 'List products',
  tag: 'Products',
});

/** Newest first, keyset cursor: the same paging as intents (decisions/0005). */
export function registerListProducts(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/products',
    { schema: { ...listProductsOperation, querystring: ListQuery, response: { 200: ProductListOut } } },
    async (request) => {
      const { limit = 10, starting_after } = request.query;
      const page = await listProducts(services.repos.products, accountOf(request), limit, starting_after);
      const data = page.data.map((product) => toProductOut(product, services.config.baseUrl));
      return { object: 'list' as const, data, has_more: page.hasMore };
    },
  );
}
