import { type LiveConnectorConfig, parseLiveConnectorConfig } from './processors/live-connector-config.ts';
import { DEFAULT_SQLITE_PATH } from './store/database.ts';

/** Everything configurable, read once from OBOLUS_* variables (docs/operations.md lists them). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** OBOLUS_DATABASE_POOL_SIZE: PostgreSQL connections of each process (`serve --workers N` opens N pools). */
  databasePoolSize: number;
  /** Public address of the intents API, /embed and the hosted pages. */
  baseUrl: string;
  /** Public address of transaction retrieval and the dashboard. */
  appUrl: string;
  logLevel: string;
  /** Trust X-Forwarded-For from a reverse proxy in front (for client IPs). */
  trustProxy: boolean;
  /** OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: let webhooks reach 127.0.0.0/8 and ::1 (development, tests). */
  webhooksAllowLoopback: boolean;
  /** OBOLUS_WEBHOOKS_POLL_MS: how often this process dispatches webhooks; 0 leaves it to `obolus worker`. */
  webhooksPollMs: number;
  /** OBOLUS_LIVE_CONNECTOR_*: the acquirer live payments go to; null refuses them (docs/live-connector.md). */
  liveConnector: LiveConnectorConfig | null;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = parsePort(env.PORT ?? '4242');
  const host = env.HOST ?? '127.0.0.1';
  const local = `http://localhost:${port}`;
  const baseUrl = stripSlash(env.OBOLUS_BASE_URL ?? local);
  return {
    port,
    host,
    databaseUrl: env.OBOLUS_DATABASE_URL || DEFAULT_SQLITE_PATH,
    databasePoolSize: parsePoolSize(env.OBOLUS_DATABASE_POOL_SIZE ?? '10'),
    baseUrl,
    appUrl: stripSlash(env.OBOLUS_APP_URL ?? baseUrl),
    logLevel: env.OBOLUS_LOG_LEVEL ?? 'info',
    trustProxy: env.OBOLUS_TRUST_PROXY === 'true',
    webhooksAllowLoopback: env.OBOLUS_WEBHOOKS_ALLOW_LOOPBACK === 'true',
    webhooksPollMs: parsePollMs(env.OBOLUS_WEBHOOKS_POLL_MS ?? '1000'),
    liveConnector: parseLiveConnectorConfig(env),
  };
}

function parsePollMs(text: string): number {
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms > 3_600_000) {
    throw new Error(`OBOLUS_WEBHOOKS_POLL_MS must be 0..3600000 milliseconds, got '${text}'`);
  }
  return ms;
}

function parsePoolSize(text: string): number {
  const size = Number(text);
  if (!/^\d+$/.test(text) || size < 1 || size > 1000) {
    throw new Error(`OBOLUS_DATABASE_POOL_SIZE must be 1..1000 connections, got '${text}'`);
  }
  return size;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0..65535, got '${text}'`);
  return port;
}

const stripSlash = (url: string) => url.replace(/\/+$/, '');
