import { defineConfig } from 'vitest/config';

/**
 * `npm run test:stress`: the long variants. `test/stress/*.stress.ts` are kept out of `npm test`
 * (it only runs `*.test.ts`); the property tests of test/hostile and test/logs run again with STRESS_RUNS
 * cases each (default 1000), and test/stress/*.test.ts with STRESS_SECONDS when set.
 * Sizes: STRESS_RUNS, STRESS_CONNECTIONS, STRESS_SECONDS; FC_SEED picks another fast-check seed.
 */
export default defineConfig({
  test: {
    include: ['test/stress/**/*.stress.ts', 'test/stress/**/*.test.ts', 'test/hostile/**/*.property.test.ts', 'test/logs/**/*.property.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // One file at a time: each of them loads the machine on purpose.
    maxWorkers: 1,
    env: { STRESS_RUNS: process.env.STRESS_RUNS ?? '1000' },
    testTimeout: 900_000,
    hookTimeout: 120_000,
  },
});
