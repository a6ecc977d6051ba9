import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../logger.ts';
import { openServices } from '../../services.ts';
import { buildApp } from '../app.ts';

/** Where `npm run openapi` writes the document; a test fails when that copy is stale. */
export const COMMITTED_DOCUMENT = new URL('../../../../../docs/openapi.json', import.meta.url);

/**
 * The document as GET /api/v1/openapi.json serves it, as formatted text. The app is built
 * (not started) over a throwaway SQLite file: the routes are the document's only source.
 */
export async function generateOpenApiText(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'obolus-openapi-'));
  const config = { ...loadConfig({}), databaseUrl: join(dir, 'obolus.db') };
  const services = await openServices(config, { liveProcessor: null });
  try {
    const { app } = await buildApp(services, createLogger('silent'));
    await app.ready();
    const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    return text;
  } finally {
    await services.database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
