/**
 * Imported first by the processes that serve requests and run imports (src/api.ts, src/main.ts,
 * the CLI), before anything else allocates much.
 *
 * V8 starts allocating the objects of an allocation site (an object literal, a `new`) directly in
 * its old generation once most of that site's objects outlived a young-generation collection.
 * Request handling makes short-lived objects in bursts: a collection that happens while a batch
 * of rows or a large Buffer is still in use teaches V8 to do that for every later object of those
 * sites, which then wait for a full collection. Imports of 100,000 rows grew the API's RSS by
 * 121-127 MB with pretenuring and 59-64 MB without it (`npm run bench -- --only io`, three runs
 * each, 2026-11-26), the large Buffers of node-postgres' messages among what was kept. List reads
 * and single creates (Q2, Q5, W1 in the same benchmark) were the same with and without.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-allocation-site-pretenuring');
