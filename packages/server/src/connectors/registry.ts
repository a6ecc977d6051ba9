import type { Processor, ProcessorRegistry } from '../domain/payments/ports.ts';
import { SandboxProcessor } from './sandbox/sandbox.ts';

export function createProcessorRegistry(live: Processor | null = null): ProcessorRegistry {
  const sandbox = new SandboxProcessor();
  return {
    forMode: (mode) => (mode === 'sandbox' ? sandbox : live),
    byName: (name) => (name === sandbox.name ? sandbox : live?.name === name ? live : null),
  };
}
