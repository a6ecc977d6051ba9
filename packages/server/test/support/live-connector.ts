import { afterAll, beforeAll } from 'vitest';
import type { LiveConnectorConfig } from '../../src/connectors/live-config.ts';
import { startTestStripe } from './stripe-double.ts';

/**
 * A live connector for a test server whose tests need live intents but never pay them (an
 * event's mode, a rate limit per mode): live intents are refused without one (decision 0199).
 * Its Stripe double answers nothing unless paid; close it with the server.
 */
export async function liveConnectorForTests(): Promise<{ liveConnector: LiveConnectorConfig; close(): Promise<void> }> {
  const double = await startTestStripe();
  return { liveConnector: { name: 'stripe', stripe: double.config() }, close: () => double.close() };
}

/**
 * For a describe block, before `useTestServer`: a live connector for its server, started before
 * the block's tests and closed after them, once the server closed. Read `liveConnector` in
 * useTestServer's options made when the server starts:
 * `useTestServer(engine, () => ({ config: { liveConnector: live.liveConnector } }))`.
 */
export function useLiveConnector(): { readonly liveConnector: LiveConnectorConfig } {
  let live: Awaited<ReturnType<typeof liveConnectorForTests>> | undefined;
  beforeAll(async () => {
    live = await liveConnectorForTests();
  });
  afterAll(async () => {
    await live?.close();
    live = undefined;
  });
  return {
    get liveConnector() {
      if (!live) throw new Error('useLiveConnector: the connector runs from beforeAll to afterAll');
      return live.liveConnector;
    },
  };
}
