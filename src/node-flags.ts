/**
 * Node.js options of every process that serves the API: `npm start`, `npm run start:api`, the
 * Docker image's command, the benchmark's API and the tests' API processes (nodeFlagsOf; a test
 * checks that the npm scripts and the Dockerfile carry them).
 *
 * `--max-semi-space-size=8` (MB; V8's default here is 16): the young generation is collected
 * twice as often, so the short-lived objects and Buffers of a streamed import or export die there
 * instead of waiting in the old generation, or as Buffers' memory outside the heap, for a full
 * collection. Measured with `npm run bench -- --only io --rows 1000000` (2026-11-26, one run
 * each): import of 100,000 rows +130 MB of API RSS at 16 MB, +40 MB at 8 MB, +58 MB at 4 MB;
 * export of a million rows +74, +45 and +24 MB. List reads and single creates (Q1, Q2, Q4, Q5,
 * W1, two runs each) were within the runs' noise at 8 MB and 10-20 % slower at 4 MB. Q5 again
 * once its cached pages were answered pre-encoded (2026-11-28, three alternated runs): 8 MB used
 * less API CPU per request than 16 MB in each (docs/performance.md#single-reads-and-large-pages).
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=8'] as const;

/** The Node.js options to start an entry point with, by its source (`src/api.ts` is the API). */
export const nodeFlagsOf = (source: string): readonly string[] => (source === 'src/api.ts' ? API_NODE_FLAGS : []);
