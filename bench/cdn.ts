import { freePort, startChild, stopChild, adminToken, type Fixture } from './setup.js';
import { alternated, hasWrk, measure, measureWithWrk, type LoadTarget, type Measurement } from './load.js';
import { startVarnish } from '../test/helpers/varnish.js';

/*
 * HTTP caching (docs/scaling-out.md#http-caches-and-purging): read keys' lists through Varnish
 * (docs/cdn/varnish.vcl, purged by the cdn-purge worker) against the same requests straight to
 * Tabula, on an API process with CDN_MAX_AGE=60.
 * - C1/C2: Q2 (page 1, exact total) and Q3 (filter, sort, page 3) by a read key (target >= 10x),
 *   driven by wrk where installed (`apt-get install wrk`), else by autocannon; through Varnish,
 *   straight, straight, through Varnish, `--pairs` times, averaged;
 * - C3: reads of Q2 by a read key, through Varnish against straight to Tabula (reads/s, target
 *   >= 5x), while creates of PUBLISHED rows by a read_write key go straight to Tabula at a ninth
 *   of C1's straight read rate (a 90/10 mix), and how stale sampled reads through Varnish were:
 *   the time since the earliest create they did not show had been answered (target: every read
 *   at most 1 s stale).
 */

export interface CdnResult {
  lists: { name: string; description: string; generator: 'wrk' | 'autocannon'; cached: Measurement; direct: Measurement; ratio: number }[];
  mixed: { cached: MixMeasurement; direct: MixMeasurement; ratio: number; maxStaleMs: number; staleOver1s: number; writesAsked: number; generator: 'wrk' | 'autocannon' };
}

interface MixMeasurement {
  readsPerSecond: number;
  writesPerSecond: number;
  readP99: number;
  errors: number;
  reads: { start: number; seen: number }[];
  acks: Map<number, number>;
}

const q = (params: Record<string, unknown>) => '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');

export async function benchCdn(env: { apiEnv: Record<string, string>; fixture: Fixture; duration: number; connections: number; pairs: number; log: (line: string) => void }): Promise<CdnResult> {
  const { apiEnv, fixture, duration, connections, log } = env;
  const port = await freePort();
  const direct = `http://127.0.0.1:${port}`;
  const api = await startChild('src/api.ts', { ...apiEnv, PORT: String(port), CDN_MAX_AGE: '60' }, `${direct}/healthz`);
  const varnish = await startVarnish([direct]);
  const purger = await startChild('workers/main.ts', { ...apiEnv, WORKERS: 'cdn-purge', CDN_PURGE_URL: `${varnish.url}/` });
  try {
    const created = await fetch(`${direct}/v1/${fixture.projectId}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench cdn read', permission: 'read' }),
    });
    const readKey = ((await created.json()) as { key: string }).key;
    const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
    const q3 = q({ filter: [{ i: 'category', w: 'eq', v: 'c' }, { i: 'price', w: 'between', v: [100, 500] }], sort: [{ i: 'price', o: 'asc' }], page: 3 });
    const read = (base: string, path: string): LoadTarget => ({ url: base + path, headers: { authorization: `Bearer ${readKey}` } });
    // wrk where the machine has it (both sides alike): autocannon, one Node thread, asks no
    // faster than Varnish answers on one core, so through Varnish it measured autocannon.
    // BENCH_LOAD=autocannon compares.
    const generator: 'wrk' | 'autocannon' = hasWrk() && process.env.BENCH_LOAD !== 'autocannon' ? 'wrk' : 'autocannon';
    const load = generator === 'wrk' ? measureWithWrk : measure;
    const lists = [];
    for (const [name, description, path] of [
      ['C1-Q2', 'Q2 by a read key through Varnish; "bare" is straight to Tabula', contents],
      ['C2-Q3', 'Q3 by a read key through Varnish; "bare" is straight to Tabula', contents + q3],
    ] as const) {
      log(`${name}: ${description} (load from ${generator})`);
      const { a: cached, b: straight } = await alternated(
        env.pairs,
        () => load(read(varnish.url, path), { duration, connections }),
        () => load(read(direct, path), { duration, connections }),
      );
      lists.push({ name, description, generator, cached, direct: straight, ratio: cached.requestsPerSecond / straight.requestsPerSecond });
    }
    // Creates at a ninth of Q2's straight read rate (C1): a 90/10 mix for reads straight to Tabula.
    const writesPerSecond = Math.max(10, Math.round(lists[0].direct.requestsPerSecond / 9));
    log(`C3: Q2 reads by a read key through Varnish and straight to Tabula, with ${writesPerSecond} creates/s on connections of their own; staleness of sampled reads through Varnish`);
    const mix = (base: string, tag: string) => mixed({ readBase: base, writeBase: direct, contents, readKey, writeKey: fixture.writeKey, tag, duration, connections, writesPerSecond, generator });
    const cached = await mix(varnish.url, 'v');
    const straight = await mix(direct, 'd');
    const stale = staleness(cached);
    return {
      lists,
      mixed: { cached, direct: straight, ratio: cached.readsPerSecond / straight.readsPerSecond, maxStaleMs: stale.max, staleOver1s: stale.over1s, writesAsked: writesPerSecond, generator },
    };
  } finally {
    await stopChild(purger);
    await varnish.close();
    await stopChild(api);
  }
}

/** Connections the creates of C3 go out on, each paced to its share of the write rate. */
const WRITERS = 8;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * C3: reads of Q2 by a read key while creates go straight to Tabula on connections of their own
 * at a fixed rate, and one reader (fetch, every 10 ms) records the highest create each answer
 * shows. The same write load on both sides, so the reads/s compare what the cache gives reads;
 * with reads and writes on the same connections, each connection's pace was set by its writes,
 * through the cache or not. The reads come from wrk at the lowest priority (nice 19) where
 * installed: at normal priority it left the writers here (paced, in this process) too little CPU
 * to keep their rate (54 creates/s through Varnish against 136 straight, of 264 asked,
 * 2026-11-28); from autocannon, in this process, they shared its event loop with the writers and
 * topped out near 9,000/s through Varnish.
 */
async function mixed(o: {
  readBase: string;
  writeBase: string;
  contents: string;
  readKey: string;
  writeKey: string;
  tag: string;
  duration: number;
  connections: number;
  writesPerSecond: number;
  generator: 'wrk' | 'autocannon';
}): Promise<MixMeasurement> {
  const acks = new Map<number, number>();
  const reads: { start: number; seen: number }[] = [];
  let seq = 0;
  let writes = 0;
  let errors = 0;
  let running = true;
  const prefix = `cdn-${o.tag}-`;
  const interval = (1000 * WRITERS) / o.writesPerSecond;
  const writer = async () => {
    for (let next = performance.now(); running; next += interval) {
      await pause(Math.max(0, next - performance.now()));
      const n = ++seq;
      const res = await fetch(o.writeBase + o.contents, {
        method: 'POST',
        headers: { authorization: `Bearer ${o.writeKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'PUBLISHED', data: { title: `${prefix}${n}`, category: 'b', price: 1, qty: 1 } }),
      }).catch(() => null);
      if (res?.status === 201) {
        acks.set(n, performance.now());
        writes++;
      } else errors++;
      await res?.arrayBuffer();
    }
  };
  const sampler = async () => {
    while (running) {
      const start = performance.now();
      const res = await fetch(o.readBase + o.contents, { headers: { authorization: `Bearer ${o.readKey}` } }).catch(() => null);
      if (res?.status === 200) {
        const body = (await res.json()) as { list: { data: { title?: string } }[] };
        const seen = Math.max(0, ...body.list.map((row) => (row.data.title?.startsWith(prefix) ? Number(row.data.title.slice(prefix.length)) : 0)));
        reads.push({ start, seen });
      } else {
        errors++;
        await res?.arrayBuffer();
      }
      await pause(10);
    }
  };
  const background = [...Array.from({ length: WRITERS }, writer), sampler()];
  const target = { url: o.readBase + o.contents, headers: { authorization: `Bearer ${o.readKey}` } };
  const options = { duration: o.duration, connections: o.connections, warmUp: 0 };
  // wrk at the lowest priority: the reads take what the writes (and the servers) leave.
  const load = o.generator === 'wrk' ? await measureWithWrk(target, { ...options, nice: 19 }) : await measure(target, options);
  running = false;
  await Promise.all(background);
  return {
    readsPerSecond: load.requestsPerSecond,
    writesPerSecond: writes / o.duration,
    readP99: load.p99,
    errors: errors + load.errors,
    reads,
    acks,
  };
}

/**
 * For each read: the earliest answered create it did not show (a sequence number above the
 * highest it saw); stale by how long before the read started that create had been answered.
 */
function staleness(m: MixMeasurement): { max: number; over1s: number } {
  const bySeq = [...m.acks.entries()].sort((a, b) => a[0] - b[0]);
  // earliestAfter[i]: the earliest ack among creates bySeq[i..].
  const earliestAfter = new Array<number>(bySeq.length + 1).fill(Infinity);
  for (let i = bySeq.length - 1; i >= 0; i--) earliestAfter[i] = Math.min(bySeq[i][1], earliestAfter[i + 1]);
  let max = 0;
  let over1s = 0;
  for (const read of m.reads) {
    let lo = 0;
    let hi = bySeq.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bySeq[mid][0] <= read.seen) lo = mid + 1;
      else hi = mid;
    }
    const stale = read.start - earliestAfter[lo];
    if (stale > max) max = stale;
    if (stale > 1000) over1s++;
  }
  return { max, over1s };
}
