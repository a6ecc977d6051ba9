import { describe, expect, it } from 'vitest';
import { DAY, ManualClock, MINUTE } from '../src/clock.ts';
import { hashPassword, needsRehash, setDashboardPassword } from '../src/domain/dashboard/passwords.ts';
import { PASSWORD_FRESH_MS } from '../src/domain/dashboard/sessions.ts';
import { SIGN_IN_MAX_FAILURES } from '../src/domain/dashboard/sign-in-limits.ts';
import type { AccountId } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { maintainOnce } from '../src/workers/maintenance.ts';
import { runCli } from './support/cli.ts';
import { cheapMerchant, merchant, PASSWORD, postForm, signInHttp } from './support/dashboard.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

/** Issue 25 items 5 and 6: sessions that end, the password asked again, and the audit trail. */
describe.each(ENGINES)('dashboard sessions, re-authentication and the audit trail (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 7, 9));
  const { t } = useTestServer(engine, { clock });

  const home = async (cookie: string) =>
    (await fetch(`${t.url}/dashboard/payments`, { headers: { cookie }, redirect: 'manual' })).status;
  const actions = async (accountId: AccountId) =>
    (await t.server.services.repos.audit.list(accountId, { limit: 100 })).map((e) => e.action);

  it('a new password ends every session of the account, in the same transaction as its audit events', async () => {
    const shop = await merchant(t);
    const a = await signInHttp(t, shop.email);
    const b = await signInHttp(t, shop.email);
    expect(await home(a.cookie)).toBe(200);
    clock.advance(1000);
    await setDashboardPassword(
      t.server.services.repos.dashboard,
      t.server.services.clock,
      shop.id,
      'a brand new secret',
    );
    expect(await home(a.cookie)).toBe(303);
    expect(await home(b.cookie)).toBe(303);
    await signInHttp(t, shop.email, 'a brand new secret');
    const trail = await t.server.services.repos.audit.list(shop.id, { limit: 100 });
    expect(trail.find((e) => e.action === 'sessions.ended')).toMatchObject({ actor: 'cli', detail: { sessions: 2 } });
    expect(trail.map((e) => e.action)).toEqual(
      expect.arrayContaining(['dashboard.sign_in', 'password.set', 'sessions.ended']),
    );
  });

  it('"Sign out everywhere" ends every session of the account and none of another', async () => {
    const shop = await merchant(t);
    const other = await merchant(t);
    const a = await signInHttp(t, shop.email);
    const b = await signInHttp(t, shop.email);
    const c = await signInHttp(t, other.email);
    clock.advance(1000);
    const page = await (await a.get('/dashboard/developer/security')).text();
    expect(page).toContain('Sign out everywhere');
    const res = await a.post('/dashboard/sign-out-everywhere');
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
    expect(await home(a.cookie)).toBe(303);
    expect(await home(b.cookie)).toBe(303);
    expect(await home(c.cookie)).toBe(200);
    const ended = (await t.server.services.repos.audit.list(shop.id, { limit: 10 })).find(
      (e) => e.action === 'sessions.ended',
    );
    expect(ended).toMatchObject({ actor: expect.stringMatching(/^session:[0-9a-f]{8}$/), detail: { sessions: 2 } });
  });

  it(`asks for the password again before a key roll, a signing-secret roll, a new endpoint or an origin change, ${PASSWORD_FRESH_MS / MINUTE} minutes after it was given`, async () => {
    const shop = await merchant(t);
    const s = await signInHttp(t, shop.email);
    clock.advance(PASSWORD_FRESH_MS - 1);
    const origin = await s.form('/dashboard/developer', '/dashboard/developer/origins', {
      origin: 'https://a.example',
    });
    expect((await s.post('/dashboard/developer/origins', origin)).status).toBe(303);
    clock.advance(1);
    const roll = await s.form('/dashboard/developer', '/dashboard/developer/roll', { grace: '0' });
    const stale = [
      await s.post('/dashboard/developer/roll', roll),
      await s.post(
        '/dashboard/developer/origins',
        await s.form('/dashboard/developer', '/dashboard/developer/origins', { origin: 'https://b.example' }),
      ),
      await s.post('/dashboard/developer/origins/remove', { origin: 'https://a.example' }),
      await s.post(
        '/dashboard/developer/webhooks',
        await s.form('/dashboard/developer', '/dashboard/developer/webhooks', { url: 'https://hooks.example/x' }),
      ),
    ];
    for (const res of stale) {
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('action="/dashboard/confirm-password"');
    }
    const form = await (await s.get('/dashboard/confirm-password?back=/dashboard/developer')).text();
    expect(form).toContain('name="back" value="/dashboard/developer"');
    const wrong = await s.post('/dashboard/confirm-password', {
      password: 'not my password',
      back: '/dashboard/developer',
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain('That password is not right.');
    const right = await s.post('/dashboard/confirm-password', { password: PASSWORD, back: '/dashboard/developer' });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/dashboard/developer');
    const rolled = await s.post('/dashboard/developer/roll', roll);
    expect(rolled.status).toBe(200);
    expect(await rolled.text()).toContain('Your new secret key');
    const trail = await actions(shop.id);
    expect(trail).toEqual(expect.arrayContaining(['secret_key.rolled', 'allowed_origins.changed']));
    expect(trail.filter((a) => a === 'dashboard.password_confirmed')).toHaveLength(2);
  });

  it('records sign-ins, failures, the lock and sign-outs; the Security history page shows them; no secret in any row', async () => {
    const shop = await cheapMerchant(t);
    clock.advance(15 * MINUTE);
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) {
      expect((await postForm(t.url, '/dashboard/sign-in', { email: shop.email, password: `wrong ${i}` })).status).toBe(
        401,
      );
    }
    expect((await postForm(t.url, '/dashboard/sign-in', { email: shop.email, password: PASSWORD })).status).toBe(429);
    clock.advance(15 * MINUTE);
    const s = await signInHttp(t, shop.email);
    const trail = await t.server.services.repos.audit.list(shop.id, { limit: 100 });
    expect(trail.filter((e) => e.action === 'dashboard.sign_in_failed')).toHaveLength(SIGN_IN_MAX_FAILURES);
    expect(trail.filter((e) => e.action === 'dashboard.locked')).toHaveLength(1);
    expect(trail[0]).toMatchObject({ action: 'dashboard.sign_in', outcome: 'success', clientNetwork: '127.0.0.1' });
    const page = await (await s.get('/dashboard/developer/security')).text();
    expect(page).toContain('Security history');
    expect(page).toContain('Sign-in locked after failures');
    expect(page).toContain('Failed sign-in');
    expect((await s.post('/dashboard/sign-out')).status).toBe(303);
    expect(await actions(shop.id)).toContain('dashboard.sign_out');
    const rows = JSON.stringify(await t.server.services.database.db.selectFrom('audit_events').selectAll().execute());
    expect(rows).not.toContain(PASSWORD);
    expect(rows).not.toContain('wrong 1');
    expect(rows).not.toMatch(/sk_[0-9A-Za-z]{8}|whsec_[0-9A-Za-z]{8}/);
    expect(rows).not.toContain(s.cookie.split('=')[1]);
  }, 60_000);

  it('hashes with scrypt N=2^15, r=8, p=3; an older p=1 hash still verifies and is upgraded at sign-in (issue 25 item 9)', async () => {
    expect(await hashPassword('some long password')).toMatch(/^scrypt\$32768\$8\$3\$/);
    const shop = await merchant(t);
    const db = t.server.services.database.db;
    const stored = () =>
      db.selectFrom('dashboard_passwords').select('hash').where('account_id', '=', shop.id).executeTakeFirstOrThrow();
    const old = await hashPassword(PASSWORD, { N: 2 ** 15, r: 8, p: 1 });
    expect(old).toMatch(/^scrypt\$32768\$8\$1\$/);
    await db.updateTable('dashboard_passwords').set({ hash: old }).where('account_id', '=', shop.id).execute();
    expect(needsRehash(old)).toBe(true);
    const first = await signInHttp(t, shop.email);
    const upgraded = (await stored()).hash;
    expect(upgraded).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(needsRehash(upgraded)).toBe(false);
    // A rehash is not a reset: the session just made stays, and the same password still signs in.
    expect(await home(first.cookie)).toBe(200);
    await signInHttp(t, shop.email);
    expect((await stored()).hash).toBe(upgraded);
    expect((await postForm(t.url, '/dashboard/sign-in', { email: shop.email, password: 'not it at all' })).status).toBe(
      401,
    );
  }, 60_000);

  it('another account never sees these events; the maintenance loop prunes them after the retention', async () => {
    const shop = await merchant(t);
    await signInHttp(t, shop.email);
    const stranger = await merchant(t);
    expect(await actions(stranger.id)).not.toContain('dashboard.sign_in');
    const retention = t.server.services.config.auditRetentionDays;
    expect(retention).toBeGreaterThanOrEqual(365);
    clock.advance(retention * DAY - MINUTE);
    await maintainOnce(t.server.services, createLogger('silent'));
    expect(await actions(shop.id)).toContain('dashboard.sign_in');
    clock.advance(2 * MINUTE);
    await maintainOnce(t.server.services, createLogger('silent'));
    expect(await actions(shop.id)).toEqual([]);
  });
});

describe('obolus accounts end-sessions and audit list (SQLite)', () => {
  const { t } = useTestServer('sqlite');

  it('end-sessions ends every session of an account; audit list prints its trail, as JSON lines too', async () => {
    const env = { OBOLUS_DATABASE_URL: t.database.url };
    const shop = await merchant(t);
    const a = await signInHttp(t, shop.email);
    const ended = await runCli(['accounts', 'end-sessions', shop.id], env, '');
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('Ended 1 dashboard session');
    expect((await a.get('/dashboard/payments')).status).toBe(303);
    expect((await runCli(['accounts', 'end-sessions', 'acct_nope'], env, '')).stderr).toContain('No such account');

    const listed = await runCli(['audit', 'list', shop.id, '--json'], env, '');
    expect(listed.code).toBe(0);
    const events = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.action).slice(0, 2)).toEqual(['sessions.ended', 'dashboard.sign_in']);
    expect(events[0]).toMatchObject({ account_id: shop.id, actor: 'cli', outcome: 'success', detail: { sessions: 1 } });
    const future = await runCli(['audit', 'list', shop.id, '--since', '2999-01-01'], env, '');
    expect(future.stdout).toContain('No audit events');
    const bad = await runCli(['audit', 'list', shop.id, '--since', 'yesterday'], env, '');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('ISO date');
  }, 60_000);
});
