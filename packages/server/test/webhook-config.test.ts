import { describe, expect, it } from 'vitest';
import { loopbackLine } from '../src/cli/serve.ts';
import { developerLoopback, loadConfig } from '../src/config.ts';

describe('webhook settings', () => {
  it('polls every second by default and never reaches loopback unless told', () => {
    expect(loadConfig({})).toMatchObject({ webhooksPollMs: 1000, webhooksAllowLoopback: false });
    expect(loadConfig({ OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true' }).webhooksAllowLoopback).toBe(true);
    expect(loadConfig({ OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: '1' }).webhooksAllowLoopback).toBe(false);
  });

  it('lets sandbox endpoints reach loopback on an explicit developer setup only (decisions 0090, 0203)', () => {
    const sandbox = (env: NodeJS.ProcessEnv) => loadConfig(env).sandboxWebhooksAllowLoopback;
    // The default setup (SQLite, NODE_ENV unset) is no longer enough (issue 25 item 4).
    expect(sandbox({})).toBe(false);
    expect(sandbox({ OBOLUS_DATABASE_URL: './shop.db' })).toBe(false);
    expect(sandbox({ OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true' })).toBe(true);
    expect(sandbox({ NODE_ENV: 'production', OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true' })).toBe(true);
    // serve --dev (npm start):
    const dev = (env: NodeJS.ProcessEnv) => developerLoopback(loadConfig(env), env);
    expect(dev({})).toMatchObject({ sandboxWebhooksAllowLoopback: true, webhooksAllowLoopback: false });
    expect(dev({ OBOLUS_DATABASE_URL: 'postgres://db.internal/obolus' })).toMatchObject({
      sandboxWebhooksAllowLoopback: true,
    });
    expect(dev({ OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'false' })).toMatchObject({ sandboxWebhooksAllowLoopback: false });
    expect(dev({ NODE_ENV: 'production' })).toMatch(/NODE_ENV is production/);
    expect(loadConfig({}).webhooksAllowLoopback).toBe(false);
  });

  it('the start banner says what decides loopback delivery', () => {
    const base = { baseUrl: 'http://localhost:4242', appUrl: 'http://localhost:4242' };
    expect(loopbackLine({ ...base, sandboxWebhooksAllowLoopback: true })).toContain('serve --dev');
    expect(loopbackLine({ ...base, sandboxWebhooksAllowLoopback: false })).toMatch(/^Webhooks to loopback: off/);
    expect(loopbackLine({ ...base, webhooksAllowLoopback: true })).toContain('OBOLUS_WEBHOOKS_ALLOW_LOOPBACK=true');
  });

  it.each(['0', '3600000'])('OBOLUS_WEBHOOKS_POLL_MS=%s is accepted', (value) => {
    expect(loadConfig({ OBOLUS_WEBHOOKS_POLL_MS: value }).webhooksPollMs).toBe(Number(value));
  });

  it.each(['-1', '3600001', '1.5', 'soon', ''])('OBOLUS_WEBHOOKS_POLL_MS=%j is refused with its name', (value) => {
    expect(() => loadConfig({ OBOLUS_WEBHOOKS_POLL_MS: value })).toThrow(/OBOLUS_WEBHOOKS_POLL_MS/);
  });
});
