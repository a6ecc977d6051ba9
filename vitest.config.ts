import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // Each file gets fresh accounts and its own database; files run in parallel processes.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a user would wait for (a button enabled, a webhook arrived):
    // Vitest's 1 s default failed browser tests on a loaded 2-core machine.
    expect: { poll: { timeout: 10_000 } },
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
