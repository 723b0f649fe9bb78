import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Each test file has its own database; two at a time fits the 2-core CI machine.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a browser page or a worker does next; on a loaded 2-core
    // machine that took more than vitest's default second. A ceiling, not an expectation.
    expect: { poll: { timeout: 10_000 } },
  },
});
