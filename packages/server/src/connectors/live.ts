import type { Processor } from '../domain/payments/ports.ts';
import type { ConnectorLog } from './connector-log.ts';
import type { LiveConnectorConfig } from './live-config.ts';

/** Where a connector reports trouble for operators. Fields only: never a body, the card or a key. */
/**
 * The live connector of a parsed configuration. Its SDK is loaded only when it is
 * configured, so every CLI command and a server without live payments start without it.
 */
export async function createLiveConnector(config: LiveConnectorConfig, log?: ConnectorLog): Promise<Processor> {
  switch (config.name) {
    case 'stripe': {
      const { StripeProcessor } = await import('./stripe/processor.ts');
      return new StripeProcessor(config.stripe, log);
    }
    case 'checkout': {
      const { CheckoutProcessor } = await import('./checkout/processor.ts');
      return new CheckoutProcessor(config.checkout, log);
    }
  }
}
