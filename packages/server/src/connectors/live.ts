import type { Processor } from '../domain/payments/ports.ts';
import type { LiveConnectorConfig } from './live-config.ts';
import { StripeProcessor } from './stripe/processor.ts';

/** Where a connector reports trouble for operators. Fields only: never a body, the card or a key. */
export interface ConnectorLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The live connector of a parsed configuration. */
export function createLiveConnector(config: LiveConnectorConfig, log?: ConnectorLog): Processor {
  switch (config.name) {
    case 'stripe':
      return new StripeProcessor(config.stripe, log);
  }
}
