import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

describe('webhook settings', () => {
  it('polls every second by default and never reaches loopback unless told', () => {
    expect(loadConfig({})).toMatchObject({ webhooksPollMs: 1000, webhooksAllowLoopback: false });
    expect(loadConfig({ OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true' }).webhooksAllowLoopback).toBe(true);
    expect(loadConfig({ OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: '1' }).webhooksAllowLoopback).toBe(false);
  });

  it('lets sandbox endpoints reach loopback on a developer machine only (decision 0090)', () => {
    const sandbox = (env: NodeJS.ProcessEnv) => loadConfig(env).sandboxWebhooksAllowLoopback;
    expect(sandbox({})).toBe(true);
    expect(sandbox({ OBOLUS_DATABASE_URL: './shop.db' })).toBe(true);
    expect(sandbox({ NODE_ENV: 'production' })).toBe(false);
    expect(sandbox({ OBOLUS_DATABASE_URL: 'postgres://db.internal/obolus' })).toBe(false);
    expect(sandbox({ OBOLUS_DATABASE_URL: 'postgresql://db.internal/obolus' })).toBe(false);
    expect(sandbox({ OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'false' })).toBe(false);
    expect(sandbox({ NODE_ENV: 'production', OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true' })).toBe(true);
    expect(loadConfig({}).webhooksAllowLoopback).toBe(false);
  });

  it.each(['0', '3600000'])('OBOLUS_WEBHOOKS_POLL_MS=%s is accepted', (value) => {
    expect(loadConfig({ OBOLUS_WEBHOOKS_POLL_MS: value }).webhooksPollMs).toBe(Number(value));
  });

  it.each(['-1', '3600001', '1.5', 'soon', ''])('OBOLUS_WEBHOOKS_POLL_MS=%j is refused with its name', (value) => {
    expect(() => loadConfig({ OBOLUS_WEBHOOKS_POLL_MS: value })).toThrow(/OBOLUS_WEBHOOKS_POLL_MS/);
  });
});
