import type { DemoAccount } from '../demo-account.ts';

/** What the banner tells of the processes that were started. */
export interface Running {
  location: string;
  demo: DemoAccount | null;
  /** Of this process, or of the first worker that took the port. */
  metricsUrl: string | null;
  stop(): Promise<void>;
}
