import { startReplicatedPostgres } from '../test/helpers/replicated-postgres.js';
import { alternated, measure, type LoadTarget } from './load.js';
import { scenarios } from './scenarios.js';
import { freePort, seed, startChild, stopChild } from './setup.js';

/*
 * Read replicas (docs/scaling-out.md#read-replicas): what routing reads costs. A primary and one
 * streaming replica on this machine; one API process on the primary alone and one with
 * DATABASE_REPLICA_URLS naming the replica, over the same data. Q1 and Q3 against each, in the
 * order alone / replica / replica / alone (`--pairs` times) so that neither side always runs
 * first (target: the routed side within 5 % of the primary alone). On one machine the replica shares the CPU with
 * the primary, so this measures the routing and the second list cache, not added capacity
 * (docs/scaling-out.md#what-replicas-add works out the gain on separate machines).
 */

export interface ReplicaResult {
  scenario: string;
  primaryAlone: number;
  routed: number;
  ratio: number;
  /** Of the routed side's sample requests, how many the replica answered. */
  replicaShare: number;
  errors: number;
}

export async function benchReplicas(opts: {
  apiEnv: Record<string, string>;
  rows: number;
  duration: number;
  connections: number;
  /** Rounds of alone / routed / routed / alone, averaged. */
  pairs: number;
  log: (line: string) => void;
}): Promise<ReplicaResult[]> {
  const cluster = await startReplicatedPostgres();
  const children = [];
  try {
    const alonePort = await freePort();
    const routedPort = await freePort();
    const alone = `http://127.0.0.1:${alonePort}`;
    const routed = `http://127.0.0.1:${routedPort}`;
    const env = { ...opts.apiEnv, DATABASE_URL: cluster.primaryUrl };
    children.push(await startChild('src/api.ts', { ...env, PORT: String(alonePort) }, `${alone}/healthz`));
    children.push(await startChild('src/api.ts', { ...env, PORT: String(routedPort), DATABASE_REPLICA_URLS: cluster.replicaUrl }, `${routed}/healthz`));
    opts.log(`replicas: seeding ${opts.rows} rows on the primary`);
    const fixture = await seed(alone, cluster.primaryUrl, opts.rows);
    const selected = (await scenarios({ api: alone, bare: alone, fixture, rows: opts.rows })).filter((s) => s.name === 'Q1' || s.name === 'Q3');
    const at = (target: LoadTarget, base: string): LoadTarget => ({ ...target, url: target.url.replace(alone, base) });
    const servedBy = async (target: LoadTarget) => {
      const path = target.next ? target.next({}).path : new URL(target.url).pathname + new URL(target.url).search;
      const res = await fetch(routed + path, { headers: target.headers });
      await res.arrayBuffer();
      return res.headers.get('tabula-served-by');
    };
    // The replica has replayed the seed once the routed API sends reads there.
    for (const deadline = Date.now() + 60_000; (await servedBy(selected[0].ours)) !== 'replica-1'; ) {
      if (Date.now() > deadline) throw new Error('the routed API never sent a read to the replica');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const results: ReplicaResult[] = [];
    for (const scenario of selected) {
      opts.log(`replicas: ${scenario.name} (${scenario.description}), primary alone and routed`);
      const run = (base: string) => measure(at(scenario.ours, base), { duration: opts.duration, connections: opts.connections });
      const { a: aloneRuns, b: routedRuns } = await alternated(opts.pairs, () => run(alone), () => run(routed));
      const samples = await Promise.all(Array.from({ length: 20 }, () => servedBy(scenario.ours)));
      const primaryAlone = aloneRuns.requestsPerSecond;
      const routedRate = routedRuns.requestsPerSecond;
      results.push({
        scenario: scenario.name,
        primaryAlone,
        routed: routedRate,
        ratio: routedRate / primaryAlone,
        replicaShare: samples.filter((s) => s === 'replica-1').length / samples.length,
        errors: aloneRuns.errors + routedRuns.errors,
      });
    }
    return results;
  } finally {
    for (const child of children) await stopChild(child);
    await cluster.close();
  }
}
