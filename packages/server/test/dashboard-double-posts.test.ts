import { describe, expect, it } from 'vitest';
import { oncePerToken } from '../src/domain/dashboard/form-uses.ts';
import { ApiError } from '../src/domain/errors.ts';
import { type HttpSession, merchant, postForm, signInHttp } from './support/dashboard.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { WEBHOOKS_BY_HAND } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

const TIMES = 5;

/** The same form posted `TIMES` times at once: the statuses, sorted. */
async function racing(session: HttpSession, action: string, fields: Record<string, string>): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: TIMES }, () => session.post(action, fields)));
  return answers.map((a) => a.status).sort();
}

describe.each(ENGINES)('dashboard create forms posted twice make one thing (%s)', (engine) => {
  const { t } = useTestServer(engine, { config: WEBHOOKS_BY_HAND });

  it('a webhook endpoint: the second post goes to the endpoint the first one made', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const endpoints = async () =>
      (await t.call('GET', '/api/v1/webhook-endpoints', { key: shop.secretKey })).json.data as { id: string }[];
    const action = '/dashboard/developer/webhooks';
    const form = await session.form('/dashboard/developer', action, { url: 'http://127.0.0.1:9/one' });
    const first = await session.post(action, form);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('whsec_');
    const again = await session.post(action, form);
    expect(again.status).toBe(303);
    const [made] = await endpoints();
    expect(again.headers.get('location')).toBe(`/dashboard/developer/webhooks/${made?.id}`);
    expect(await endpoints()).toHaveLength(1);

    const raced = await session.form('/dashboard/developer', action, { url: 'http://127.0.0.1:9/two' });
    expect(await racing(session, action, raced)).toEqual([200, ...Array(TIMES - 1).fill(303)]);
    expect(await endpoints()).toHaveLength(2);
  });

  it('a product, one post after another and at once', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const products = async () => (await t.call('GET', '/api/v1/products', { key: shop.secretKey })).json.data;
    const fields = { name: 'Tea', amount: '7.50', mode: 'sandbox' };
    const form = await session.form('/dashboard/products', '/dashboard/products', fields);
    const first = await session.post('/dashboard/products', form);
    const again = await session.post('/dashboard/products', form);
    expect([first.status, again.status]).toEqual([303, 303]);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await products()).toHaveLength(1);
    const raced = await session.form('/dashboard/products', '/dashboard/products', { ...fields, name: 'Coffee' });
    expect(await racing(session, '/dashboard/products', raced)).toEqual(Array(TIMES).fill(303));
    expect((await products()).map((p: { name: string }) => p.name).sort()).toEqual(['Coffee', 'Tea']);
    // Two forms shown one after the other are two products: the token is per form, not per name.
    const another = await session.form('/dashboard/products', '/dashboard/products', fields);
    expect((await session.post('/dashboard/products', another)).status).toBe(303);
    expect(await products()).toHaveLength(3);
  });

  it('an allowed origin: the form sent again after the origin was removed adds nothing', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const origins = async () => (await t.server.services.repos.accounts.find(shop.id))?.allowedOrigins;
    const form = await session.form('/dashboard/developer', '/dashboard/developer/origins', {
      origin: 'https://shop.example',
    });
    expect(await racing(session, '/dashboard/developer/origins', form)).toEqual(Array(TIMES).fill(303));
    expect(await origins()).toEqual(['https://shop.example']);
    const remove = await session.form('/dashboard/developer', '/dashboard/developer/origins/remove', {
      origin: 'https://shop.example',
    });
    expect((await session.post('/dashboard/developer/origins/remove', remove)).status).toBe(303);
    expect(await origins()).toEqual([]);
    expect((await session.post('/dashboard/developer/origins', form)).status).toBe(303);
    expect(await origins()).toEqual([]);
  });

  it('different origins added at once, from forms of several pages, are all kept', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const wanted = Array.from({ length: TIMES }, (_, i) => `https://shop${i}.example`);
    const forms = await Promise.all(
      wanted.map((origin) => session.form('/dashboard/developer', '/dashboard/developer/origins', { origin })),
    );
    const answers = await Promise.all(forms.map((form) => session.post('/dashboard/developer/origins', form)));
    expect(answers.map((a) => a.status)).toEqual(Array(TIMES).fill(303));
    const stored = (await t.server.services.repos.accounts.find(shop.id))?.allowedOrigins ?? [];
    expect([...stored].sort()).toEqual(wanted);
  });

  it('a refund: a double-posted confirmation refunds once, sequentially and concurrently', async () => {
    const shop = await merchant(t);
    const { id, intentId } = await createSettledTransaction(t, shop, { amount: 2000 });
    const session = await signInHttp(t, shop.email);
    const action = `/dashboard/payments/${intentId}/refund`;
    const refunds = async () => {
      const tx = await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey });
      const list = tx.json.refunds as { amount: number }[];
      return { refunded: list.reduce((sum, r) => sum + r.amount, 0), count: list.length };
    };
    const form = await session.form(`${action}?amount=3.00`, action);
    expect(await racing(session, action, form)).toEqual(Array(TIMES).fill(303));
    expect(await refunds()).toEqual({ refunded: 300, count: 1 });
    const later = await session.post(action, form);
    expect(later.status).toBe(303);
    expect(later.headers.get('location')).toBe(`/dashboard/payments/${intentId}?done=refund`);
    expect(await refunds()).toEqual({ refunded: 300, count: 1 });
    // A second refund is a second confirmation page, so a second token: that one is made.
    const second = await session.form(`${action}?amount=2.00`, action);
    expect((await session.post(action, second)).status).toBe(303);
    expect(await refunds()).toEqual({ refunded: 500, count: 2 });
  });

  it('refuses a create form without its one-time token, or with a malformed one', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    for (const once of [undefined, '', 'short', `${'a'.repeat(23)}!`]) {
      const fields: Record<string, string> = { name: 'Tea', amount: '1.00', mode: 'sandbox' };
      if (once !== undefined) fields.once = once;
      const res = await session.post('/dashboard/products', fields);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This form is out of date');
    }
    expect((await t.call('GET', '/api/v1/products', { key: shop.secretKey })).json.data).toEqual([]);
  });

  it("one account's token is not another's: the same token makes each its own", async () => {
    const [a, b] = [await merchant(t), await merchant(t)];
    const once = 'x'.repeat(24);
    for (const shop of [a, b]) {
      const session = await signInHttp(t, shop.email);
      const res = await session.post('/dashboard/products', { name: 'Tea', amount: '1.00', mode: 'sandbox', once });
      expect(res.status).toBe(303);
      expect((await t.call('GET', '/api/v1/products', { key: shop.secretKey })).json.data).toHaveLength(1);
    }
  });
});

describe.each(ENGINES)('a create form posted to two processes at once (%s)', (engine) => {
  const { t } = useTestServer(engine);
  const other = useSecondProcess(t);

  it('one refund confirmation sent to both processes, three times each, refunds once', async () => {
    const shop = await merchant(t);
    const { id, intentId } = await createSettledTransaction(t, shop, { amount: 2000 });
    const session = await signInHttp(t, shop.email);
    const action = `/dashboard/payments/${intentId}/refund`;
    const form = await session.form(`${action}?amount=4.00`, action);
    const posts = [t.url, other.url, t.url, other.url, t.url, other.url].map((url) =>
      postForm(url, action, form, { cookie: session.cookie }),
    );
    expect((await Promise.all(posts)).map((res) => res.status)).toEqual(Array(6).fill(303));
    const tx = await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey });
    expect((tx.json.refunds as { amount: number }[]).map((r) => r.amount)).toEqual([400]);
  });
});

describe.each(ENGINES)('one-time form tokens in the store (%s)', (engine) => {
  const { t } = useTestServer(engine);

  it('a refusal lets the token go; a failure halfway keeps it, so a repeat makes nothing', async () => {
    const shop = await merchant(t);
    const { formUses } = t.server.services.repos;
    const scope = { accountId: shop.id, sessionDigest: 'd'.repeat(64), token: 'k'.repeat(24) };
    const options = { refused: (error: unknown) => error instanceof ApiError, waitMs: 200 };
    let made = 0;
    const make = async () => ({ value: ++made, result: '/dashboard/made' });
    const refuse = async () => {
      throw new ApiError('parameter_invalid', 'no', 'amount');
    };
    const crash = async () => {
      made++;
      throw new Error('the database went away');
    };
    const clock = t.server.services.clock;
    await expect(oncePerToken(formUses, clock, scope, refuse, options)).rejects.toThrow('no');
    expect(await oncePerToken(formUses, clock, scope, make, options)).toEqual({ first: true, value: 1 });
    expect(await oncePerToken(formUses, clock, scope, make, options)).toEqual({
      first: false,
      result: '/dashboard/made',
    });
    const other = { ...scope, token: 'c'.repeat(24) };
    await expect(oncePerToken(formUses, clock, other, crash, options)).rejects.toThrow('went away');
    expect(await oncePerToken(formUses, clock, other, make, options)).toEqual({ first: false, busy: true });
    expect(made).toBe(2);
  });
});
