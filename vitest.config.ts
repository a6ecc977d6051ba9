import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // No child process a file started outlives it (test/support/children.ts).
    setupFiles: ['packages/server/test/support/setup-children.ts'],
    // Each file gets fresh accounts and its own database; files run in parallel processes.
    pool: 'forks',
    // Most of the suite waits (browsers, child processes, the acquirer doubles' timeouts) rather
    // than computes: a worker per core, and at least two. Vitest's default, cores - 1, ran the
    // files of a 2-core CI machine one by one (decision 0187).
    maxWorkers: Math.max(2, availableParallelism()),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a user would wait for (a button enabled, a webhook arrived):
    // Vitest's 1 s default failed browser tests on a loaded 2-core machine.
    expect: { poll: { timeout: 10_000 } },
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
