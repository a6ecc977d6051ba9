import type { LiveConnectorConfig } from '../../src/connectors/live-config.ts';
import { useStarted } from './hooks.ts';
import { startTestStripe } from './stripe-double.ts';

/**
 * A live connector for a test server whose tests need live intents but never pay them (an
 * event's mode, a rate limit per mode): live intents are refused without one (decision 0199).
 * Its Stripe double answers nothing unless paid; close it with the server.
 */
export interface LiveConnectorForTests {
  liveConnector: LiveConnectorConfig;
  close(): Promise<void>;
}

export async function liveConnectorForTests(): Promise<LiveConnectorForTests> {
  const double = await startTestStripe();
  return { liveConnector: { name: 'stripe', stripe: double.config() }, close: () => double.close() };
}

/**
 * For a describe block: a live connector started before its tests and closed after them.
 * useTestServer's `withLiveConnector` starts one for its server, before the server.
 */
export function useLiveConnector(): LiveConnectorForTests {
  return useStarted('useLiveConnector: the connector', liveConnectorForTests, (live) => live.close());
}
