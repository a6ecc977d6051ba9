import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import {
  DEFAULT_LIVE_TIMEOUT_MS,
  MAX_LIVE_KEY_LENGTH,
  MAX_LIVE_TIMEOUT_MS,
  parseLiveConnectorConfig,
} from '../src/processors/live-connector-config.ts';

const URL_ = 'https://acquirer.example/v1';
const KEY = 'acq_live_0123456789abcdef';
const parse = (env: Record<string, string>) => parseLiveConnectorConfig(env);
const refusal = (env: Record<string, string>) => {
  try {
    parse(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('OBOLUS_LIVE_CONNECTOR_* configuration', () => {
  it('no URL: no live connector, and loadConfig says so', () => {
    expect(parse({})).toBeNull();
    expect(loadConfig({}).liveConnector).toBeNull();
  });

  it('an https URL and a key: a connector with the default 15 s timeout', () => {
    const config = loadConfig({ OBOLUS_LIVE_CONNECTOR_URL: URL_, OBOLUS_LIVE_CONNECTOR_KEY: KEY }).liveConnector;
    expect(config?.url.href).toBe(URL_);
    expect(config?.key).toBe(KEY);
    expect(config?.timeoutMs).toBe(DEFAULT_LIVE_TIMEOUT_MS);
    expect(DEFAULT_LIVE_TIMEOUT_MS).toBe(15_000);
  });

  it('http only when the operator allows it (development)', () => {
    const env = { OBOLUS_LIVE_CONNECTOR_URL: 'http://127.0.0.1:7000', OBOLUS_LIVE_CONNECTOR_KEY: KEY };
    expect(refusal(env)).toContain('must use https://');
    expect(parse({ ...env, OBOLUS_LIVE_CONNECTOR_ALLOW_HTTP: 'true' })?.url.protocol).toBe('http:');
    expect(refusal({ ...env, OBOLUS_LIVE_CONNECTOR_URL: 'ftp://acquirer.example' })).toContain('https://');
  });

  it.each([
    ['not a url', 'absolute https:// URL'],
    ['https://user:pw@acquirer.example', 'credentials'],
    ['https://acquirer.example/v1?key=1', 'query'],
    ['https://acquirer.example/v1#x', 'fragment'],
  ])('refuses the URL %s', (url, message) => {
    expect(refusal({ OBOLUS_LIVE_CONNECTOR_URL: url, OBOLUS_LIVE_CONNECTOR_KEY: KEY })).toContain(message);
  });

  it('the key: required with a URL, meaningless without, 1 to 1024 visible characters, never echoed', () => {
    expect(refusal({ OBOLUS_LIVE_CONNECTOR_URL: URL_ })).toContain('OBOLUS_LIVE_CONNECTOR_KEY is required');
    expect(refusal({ OBOLUS_LIVE_CONNECTOR_KEY: KEY })).toContain('OBOLUS_LIVE_CONNECTOR_URL is not');
    const withKey = (key: string) => ({ OBOLUS_LIVE_CONNECTOR_URL: URL_, OBOLUS_LIVE_CONNECTOR_KEY: key });
    expect(parse(withKey('k'))?.key).toBe('k');
    expect(parse(withKey('k'.repeat(MAX_LIVE_KEY_LENGTH)))?.key).toHaveLength(1024);
    const tooLong = 'k'.repeat(MAX_LIVE_KEY_LENGTH + 1);
    expect(refusal(withKey(tooLong))).not.toContain(tooLong);
    expect(refusal(withKey('has space'))).toContain('visible ASCII');
    expect(refusal(withKey('has space'))).not.toContain('has space');
    expect(refusal(withKey('line\nbreak'))).toContain('OBOLUS_LIVE_CONNECTOR_KEY');
  });

  it(`the timeout: 1 to ${MAX_LIVE_TIMEOUT_MS} ms`, () => {
    const withTimeout = (ms: string) => ({
      OBOLUS_LIVE_CONNECTOR_URL: URL_,
      OBOLUS_LIVE_CONNECTOR_KEY: KEY,
      OBOLUS_LIVE_CONNECTOR_TIMEOUT_MS: ms,
    });
    expect(parse(withTimeout('1'))?.timeoutMs).toBe(1);
    expect(parse(withTimeout('30000'))?.timeoutMs).toBe(30_000);
    expect(parse(withTimeout(''))?.timeoutMs).toBe(DEFAULT_LIVE_TIMEOUT_MS);
    for (const bad of ['0', '30001', '-5', '1.5', '15s']) {
      expect(refusal(withTimeout(bad))).toContain('OBOLUS_LIVE_CONNECTOR_TIMEOUT_MS must be 1..30000');
    }
  });
});
