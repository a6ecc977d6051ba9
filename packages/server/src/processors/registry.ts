import type { Mode } from '../domain/intents.ts';
import type { Processor } from './processor.ts';
import { SandboxProcessor } from './sandbox.ts';

/** Which processor takes a payment of a given mode. Live has one only if the operator configured one. */
export interface ProcessorRegistry {
  forMode(mode: Mode): Processor | null;
  byName(name: string): Processor | null;
}

export function createProcessorRegistry(live: Processor | null = null): ProcessorRegistry {
  const sandbox = new SandboxProcessor();
  return {
    forMode: (mode) => (mode === 'sandbox' ? sandbox : live),
    byName: (name) => (name === sandbox.name ? sandbox : live?.name === name ? live : null),
  };
}
