import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidParam } from '../../domain/errors.ts';
import { createProduct, listProducts, type Product, retrieveProduct, updateProduct } from '../../domain/products.ts';
import type { Services } from '../../services.ts';
import { field, requireActive, type Signed, seeOther } from './context.ts';
import { money } from './format.ts';
import { createForm, page, postForm } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { minorUnitsOf } from './payment-filters.ts';
import { getPage, postAction, postCreate } from './routes.ts';

type Id = { id: string };

/** The form's fields, held to the limits the products API's schema sets (api/v1/product-schema.ts). */
function productFields(request: FastifyRequest) {
  const name = field(request, 'name');
  const description = field(request, 'description').trim();
  const successUrl = field(request, 'success_url').trim();
  if (name.length > 100) throw invalidParam('name', 'The name must be at most 100 characters.');
  if (description && (description.length < 5 || description.length > 100)) {
    throw invalidParam('description', 'The description must be 5 to 100 characters, or empty.');
  }
  if (successUrl.length > 2000) throw invalidParam('success_url', 'The success URL must be at most 2000 characters.');
  const amount = minorUnitsOf(field(request, 'amount'), 'amount');
  if (amount < 1) throw invalidParam('amount', 'The amount must be at least 0.01.');
  return { name, description, successUrl, amount };
}

function productForm(signed: Signed, action: string, product?: Product): Markup {
  const v = (text: string | null | undefined) => text ?? '';
  // A new product's form makes one product however often it is sent; an edit is the same edit twice.
  return (product ? postForm : createForm)(
    signed,
    action,
    html`<label>Name<input name="name" required maxlength="100" value="${v(product?.name)}"></label>
<label>Description<input name="description" maxlength="100" value="${v(product?.description)}"></label>
<label>Amount (USD)<input name="amount" required inputmode="decimal" size="10" value="${product ? (product.amount / 100).toFixed(2) : ''}"></label>
<label>Success URL<input name="success_url" type="url" maxlength="2000" value="${v(product?.successUrl)}"></label>
<button type="submit">${product ? 'Save' : `Create ${signed.session.mode} product`}</button>`,
    'panel fields',
  );
}

/** The hosted checkout link, read-only to select by hand; copy-link.ts adds a Copy button. */
const linkField = (p: Product, link: string) =>
  html`<label for="link-${p.id}">Checkout link</label><span class="copy-field"><input id="link-${p.id}" readonly value="${link}" size="30" data-copy="${p.name}"></span>`;

function productRow(signed: Signed, baseUrl: string, p: Product): Markup {
  const link = `${baseUrl}/${p.id}`;
  const toggle = postForm(
    signed,
    `/dashboard/products/${p.id}/active`,
    html`<input type="hidden" name="active" value="${p.active ? 'false' : 'true'}"><button class="secondary" type="submit">${p.active ? 'Deactivate' : 'Activate'}</button>`,
  );
  return html`<tr><td><a href="/dashboard/products/${p.id}">${p.name}</a></td><td class="num">${money(p.amount, p.currency)}</td><td class="hide-narrow">${p.mode}</td><td class="hide-narrow">${p.active ? 'active' : 'inactive'}</td>
<td class="hide-narrow">${linkField(p, link)}</td><td>${toggle}</td></tr>`;
}

/** Products: list, create, edit, activate / deactivate; the hosted checkout link to copy. */
export function registerProducts(scope: FastifyInstance, services: Services): void {
  const { baseUrl } = services.config;
  getPage(scope, '/products', async (signed, request) => {
    const after = request.query.after ? String(request.query.after) : undefined;
    const list = await listProducts(services.repos.products, signed.account, 50, after, signed.session.mode);
    const last = list.data[list.data.length - 1];
    const rows = list.data.map((p) => productRow(signed, baseUrl, p));
    const created = list.data.find((p) => p.id === request.query.created);
    const body = html`${created ? html`<p class="notice" role="status">Product created: ${created.name}.</p>` : ''}<h2>New product</h2>${productForm(signed, '/dashboard/products')}
<h2>Your products</h2>${
      rows.length === 0
        ? html`<p class="muted">No products yet.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Products"><table><thead><tr><th>Name</th><th class="num">Amount</th><th class="hide-narrow">Mode</th><th class="hide-narrow">State</th><th class="hide-narrow">Hosted page</th><th>Action</th></tr></thead><tbody>${rows}</tbody></table></div>`
    }${list.hasMore && last ? html`<nav class="pager" aria-label="Pages"><a href="/dashboard/products?after=${last.id}">Next page</a></nav>` : ''}`;
    return page(signed, { title: 'Products', section: '/dashboard/products', body });
  });

  postCreate(scope, services, '/products', async (signed, request) => {
    // A new product is a new way to take payments: an inactive account may not start one.
    requireActive(signed);
    const input = productFields(request);
    const product = await createProduct(services.repos.products, services.clock, signed.account, {
      name: input.name,
      amount: input.amount,
      currency: 'USD',
      // The mode the dashboard shows: a product made here is on the page it was made from.
      mode: signed.session.mode,
      ...(input.description ? { description: input.description } : {}),
      ...(input.successUrl ? { success_url: input.successUrl } : {}),
    });
    return { result: `/dashboard/products?created=${product.id}` };
  });

  getPage<Id>(scope, '/products/:id', async (signed, request) => {
    const product = await retrieveProduct(services.repos.products, signed.account, request.params.id);
    return page(signed, {
      title: `Edit ${product.name}`,
      section: '/dashboard/products',
      body: html`<p>Hosted checkout page: <a href="${baseUrl}/${product.id}">${baseUrl}/${product.id}</a></p>
<div class="panel">${linkField(product, `${baseUrl}/${product.id}`)}</div>${productForm(signed, `/dashboard/products/${product.id}`, product)}`,
    });
  });

  postAction<Id>(scope, '/products/:id', async (signed, request, reply) => {
    const input = productFields(request);
    await updateProduct(services.repos.products, services.clock, signed.account, request.params.id, {
      name: input.name,
      amount: input.amount,
      description: input.description || null,
      success_url: input.successUrl || null,
    });
    return seeOther(reply, '/dashboard/products');
  });

  postAction<Id>(scope, '/products/:id/active', async (signed, request, reply) => {
    const active = field(request, 'active') === 'true';
    // Selling again is taking payments: an inactive account may stop selling, not start.
    if (active) requireActive(signed);
    await updateProduct(services.repos.products, services.clock, signed.account, request.params.id, { active });
    return seeOther(reply, '/dashboard/products');
  });
}
