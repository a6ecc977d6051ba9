import { expect } from 'vitest';
import { createAccount } from '../../src/domain/accounts.ts';
import { auditEvent, CLI_ACTOR } from '../../src/domain/audit.ts';
import { hashPassword } from '../../src/domain/dashboard/passwords.ts';
import type { TestAccount, TestServer } from './server.ts';

export const PASSWORD = 'correct horse battery staple';

let merchants = 0;

let passwordHash: Promise<string> | undefined;
/**
 * PASSWORD's scrypt hash (N=2^15, r=8, p=3), made once per test file: each hash is about a third
 * of a second of CPU, and the suite makes a hundred merchants. Signing in still checks it.
 */
const hashOfPassword = () => (passwordHash ??= hashPassword(PASSWORD));

/** A fresh account with an email of its own and a dashboard password. */
export async function merchant(
  t: TestServer,
  options: { name?: string; origins?: string[] } = {},
): Promise<TestAccount & { email: string }> {
  const { services } = t.server;
  const email = `owner${++merchants}-${Math.random().toString(36).slice(2, 8)}@shop.example`;
  const created = await createAccount(services.repos.accounts, services.clock, {
    name: options.name ?? `Shop ${merchants}`,
    email,
    allowedOrigins: options.origins ?? [],
  });
  // What setDashboardPassword writes (the hash and its audit events), with the file's one hash.
  const now = services.clock.now();
  const audit = [
    auditEvent(now, { accountId: created.account.id, action: 'password.set', actor: CLI_ACTOR }),
    auditEvent(now, { accountId: created.account.id, action: 'sessions.ended', actor: CLI_ACTOR }),
  ];
  expect(await services.repos.dashboard.setPassword(created.account.id, await hashOfPassword(), now, audit)).toBe(true);
  return { id: created.account.id, secretKey: created.secretKey, clientKey: created.account.clientKey, email };
}

/**
 * PASSWORD hashed with scrypt at N=2^10, r=8, p=1, once per file (decision 0273): a wrong guess
 * against it costs about a millisecond of CPU where today's parameters cost a third of a second.
 * For tests that count failed sign-ins: what they check is what is counted. A right guess is
 * rehashed to today's parameters at sign-in, as an older hash is (needsRehash).
 */
let cheapHash: Promise<string> | undefined;

/** `merchant`, with the cheap hash of PASSWORD. */
export async function cheapMerchant(t: TestServer): Promise<TestAccount & { email: string }> {
  const shop = await merchant(t);
  cheapHash ??= hashPassword(PASSWORD, { N: 2 ** 10, r: 8, p: 1 });
  const { services } = t.server;
  expect(await services.repos.dashboard.setPassword(shop.id, await cheapHash, services.clock.now())).toBe(true);
  return shop;
}

export function originOf(url: string): string {
  return new URL(url).origin;
}

/** A form post as a browser on the dashboard's own origin sends it. */
export function postForm(
  url: string,
  path: string,
  fields: Record<string, string>,
  options: { cookie?: string; origin?: string | null } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const origin = options.origin === undefined ? originOf(url) : options.origin;
  if (origin !== null) headers.origin = origin;
  if (options.cookie) headers.cookie = options.cookie;
  return fetch(url + path, { method: 'POST', headers, body: new URLSearchParams(fields), redirect: 'manual' });
}

export interface HttpSession {
  cookie: string;
  setCookie: string;
  csrf: string;
  get(path: string): Promise<Response>;
  post(path: string, fields?: Record<string, string>): Promise<Response>;
  /**
   * As a browser does: shows `pagePath`, takes the hidden fields (CSRF and one-time tokens)
   * of its form posting to `action`, and answers them with `fields` added, ready to post.
   */
  form(pagePath: string, action: string, fields?: Record<string, string>): Promise<Record<string, string>>;
}

/** The hidden fields of the form of `page` that posts to `action`. */
export function hiddenFields(page: string, action: string): Record<string, string> {
  const forms = [...page.matchAll(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((m) => m[1] === action.replaceAll('&', '&amp;'));
  expect(form, `a form posting to ${action}`).toBeDefined();
  const fields: Record<string, string> = {};
  for (const input of (form?.[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[input[1] as string] = input[2] as string;
  }
  return fields;
}

/** Signs in over HTTP and reads the CSRF token from the home page, as a browser would. */
export async function signInHttp(t: TestServer, email: string, password = PASSWORD): Promise<HttpSession> {
  const res = await postForm(t.url, '/dashboard/sign-in', { email, password });
  expect(res.status).toBe(303);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] as string;
  const get = (path: string) => fetch(t.url + path, { headers: { cookie }, redirect: 'manual' });
  const home = await (await get('/dashboard')).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
  expect(csrf).not.toBe('');
  return {
    cookie,
    setCookie,
    csrf,
    get,
    post: (path, fields = {}) => postForm(t.url, path, { csrf, ...fields }, { cookie }),
    form: async (pagePath, action, fields = {}) => ({
      ...hiddenFields(await (await get(pagePath)).text(), action),
      ...fields,
    }),
  };
}
