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
