/**
 * `npm run bench [-- --rows 1000000 --duration 10 --connections 32 --only Q1,Q2]`
 * `npm run bench -- --soak [--soak-minutes 10]`: mixed load over time instead (see bench/soak.ts).
 * `--log-entries N` (default 10,000,000; 0 skips): the log list over that many stored entries.
 * `--logging-pairs N` (default 120): paired 2 s runs of Q1 with request logging on and off.
 * `--pairs N` (default 1): each scenario and its bare counterpart run alternately N times, averaged
 *   (also C1/C2 through Varnish and straight, and replicas routed and alone).
 * `--release-rounds N` (default 3): releases of 1,000 rows published by R1-release (bench/releases.ts).
 * `--only replicas`: Q1 and Q3 with a streaming replica against the primary alone (bench/replicas.ts).
 *
 * Seeds a table of N rows, starts Tabula's API and a bare node:http + pg handler over the same
 * data (both as child processes), drives each with autocannon and prints requests/s, p50/p99
 * and the ratio ours/bare per query, then writes a JSON result file to bench/results/.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchApiEnv, benchDatabase, freePort, root, seed, startChild, startLoggingPair, stopChild } from './setup.js';
import { combined, measure, type Measurement } from './load.js';
import { benchEvents } from './events.js';
import { scenarios, type Scenario } from './scenarios.js';
import { measureLoggingCost, type LoggingCost } from './logging.js';
import { measureLoggingPipeline, type LoggingPipelineCost } from './logging-pipeline.js';
import { soak, type SoakReport } from './soak.js';
import { benchLogScale, type LogScaleReport } from './log-scale.js';
import { benchMixed, type MixedResult } from './mixed.js';
import { coldLatencies, type ColdLatency } from './cold.js';
import { mcpToolsLatency, type SingleLatency } from './mcp.js';
import { seedRevisions } from './revisions.js';
import { seedFiles } from './files.js';
import { benchRealtime, type RealtimeResult } from './realtime.js';
import { benchImportExport, type IoResult } from './import-export.js';
import { benchS3, type S3Result } from './s3.js';
import { benchImages, type ImagesResult } from './images.js';
import { benchReleases, type ReleaseResult } from './releases.js';
import { benchCdn, type CdnResult } from './cdn.js';
import { benchCopy, type CopyResult } from './copy.js';
import { benchReplicas, type ReplicaResult } from './replicas.js';
import { benchSchema, prepareWideSchema, type SchemaResult } from './schema.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    only: { type: 'string' },
    events: { type: 'string', default: '5000' },
    soak: { type: 'boolean', default: false },
    'soak-minutes': { type: 'string', default: '10' },
    'log-entries': { type: 'string', default: '10000000' },
    'logging-pairs': { type: 'string', default: '120' },
    'release-rounds': { type: 'string', default: '3' },
    pairs: { type: 'string', default: '1' },
  },
});
const rows = Number(args.rows);
const duration = Number(args.duration);
const connections = Number(args.connections);
const pairs = Math.max(1, Number(args.pairs));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
/** The scenarios asked for by `--only` (all when absent; none of them with `--soak`). */
const only = args.soak ? [] : args.only?.split(',');
/** Whether `--only` names one of `names` (each a scenario name, or a test of one); without `--only`, every one is wanted. */
const wants = (...names: (string | ((name: string) => boolean))[]) =>
  !only || only.some((name) => names.some((wanted) => (typeof wanted === 'string' ? wanted === name : wanted(name))));

const db = await benchDatabase();
const apiPort = await freePort();
const barePort = await freePort();
const apiEnv = {
  ...benchApiEnv(db.url),
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  // The realtime scenario opens 1,000 streams with one key.
  REALTIME_MAX_STREAMS: '5000',
};
const api = await startChild('src/api.ts', { ...apiEnv, PORT: String(apiPort) }, `http://127.0.0.1:${apiPort}/healthz`);
const wantsLogging = wants('logging');
let logging: LoggingCost | null = null;
let loggingPipeline: LoggingPipelineCost | null = null;
let soakReport: SoakReport | null = null;
let logScale: LogScaleReport | null = null;
const results: { scenario: string; ours: Measurement; bare: Measurement | null; ratio: number | null; target: string }[] = [];
let events: Awaited<ReturnType<typeof benchEvents>> | null = null;
let mixed: MixedResult | null = null;
let cold: ColdLatency[] = [];
let single: SingleLatency[] = [];
let realtime: RealtimeResult | null = null;
let io: IoResult | null = null;
let s3: S3Result | null = null;
let images: ImagesResult | null = null;
let releases: ReleaseResult | null = null;
let cdn: CdnResult | null = null;
let copyResult: CopyResult | null = null;
let replicas: ReplicaResult[] = [];
let schema: SchemaResult | null = null;
try {
  const wantsSchema = wants('schema');
  if (wantsSchema) log('schema: creating a 50-table, 1,000-column schema with one apply (before the seeding: its indexes read the whole contents table)');
  const wide = wantsSchema ? await prepareWideSchema(`http://127.0.0.1:${apiPort}`) : null;
  log(`seeding ${rows} rows`);
  const fixture = await seed(`http://127.0.0.1:${apiPort}`, db.url, rows);
  if (args.soak) {
    // The whole system: workers deliver events, ingest logs and roll them up while the load runs.
    const workers = await startChild('workers/main.ts', apiEnv);
    try {
      log(`soak: ${args['soak-minutes']} minutes of mixed load (45% read by id, 25% list, 15% filter, 10% create, 5% update)`);
      soakReport = await soak({ api: `http://127.0.0.1:${apiPort}`, fixture, minutes: Number(args['soak-minutes']), windowSeconds: 30, connections, log });
    } finally {
      await stopChild(workers);
    }
  }
  const bare = await startChild(
    'bench/bare-server.ts',
    { DATABASE_URL: db.url, PORT: String(barePort), BENCH_TABLE_ID: fixture.tableId, BENCH_PROJECT_ID: fixture.projectId },
    `http://127.0.0.1:${barePort}/q2?count=false`,
  );
  try {
    const revisions = wants('V1', 'V2') ? await seedRevisions(db.url, fixture) : undefined;
    if (wants((name) => name.startsWith('F'))) await seedFiles(db.url, fixture.projectId);
    const selected = await scenarios({ api: `http://127.0.0.1:${apiPort}`, bare: `http://127.0.0.1:${barePort}`, fixture, rows, revisions });
    for (const scenario of selected.filter((s: Scenario) => wants(s.name))) {
      log(`${scenario.name}: ${scenario.description}`);
      // The CPU time of the process that answers (the API, or the bare handler) per request.
      const pidOf = (url: string) => (url.startsWith(`http://127.0.0.1:${apiPort}`) ? api.pid : bare.pid);
      // Ours and bare alternately, `--pairs` times: what either run meets first (a collection, a
      // cold cache) then falls on both sides alike.
      const oursRuns: Measurement[] = [];
      const bareRuns: Measurement[] = [];
      for (let pair = 0; pair < pairs; pair++) {
        oursRuns.push(await measure(scenario.ours, { duration, connections, pid: pidOf(scenario.ours.url) }));
        if (scenario.bare) bareRuns.push(await measure(scenario.bare, { duration, connections, pid: pidOf(scenario.bare.url) }));
      }
      const ours = combined(oursRuns);
      const bareResult = scenario.bare ? combined(bareRuns) : null;
      const ratio = bareResult ? ours.requestsPerSecond / bareResult.requestsPerSecond : null;
      results.push({ scenario: scenario.name, ours, bare: bareResult, ratio, target: scenario.target });
    }
    if (wants('io')) {
      io = await benchImportExport({ api: `http://127.0.0.1:${apiPort}`, fixture, log });
    }
    if (wants('realtime')) {
      // The relay worker feeds the streams; a second API process serves some of them.
      const api2Port = await freePort();
      const relay = await startChild('workers/main.ts', { ...apiEnv, WORKERS: 'outbox' });
      const api2 = await startChild('src/api.ts', { ...apiEnv, PORT: String(api2Port) }, `http://127.0.0.1:${api2Port}/healthz`);
      try {
        const w1 = selected.find((s) => s.name === 'W1')!.ours;
        realtime = await benchRealtime({ api: `http://127.0.0.1:${apiPort}`, api2: `http://127.0.0.1:${api2Port}`, fixture, duration, connections, w1, log });
      } finally {
        await stopChild(api2);
        await stopChild(relay);
      }
    }
    if (wants('images')) {
      images = await benchImages({ api: `http://127.0.0.1:${apiPort}`, fixture, duration, connections, log });
    }
    if (wants('R1-release')) {
      releases = await benchReleases({ api: `http://127.0.0.1:${apiPort}`, apiEnv, fixture, rounds: Number(args['release-rounds']), log });
    }
    if (wants('M2-mcp-tools')) {
      log('M2 one at a time: tools/list, 200 calls in a row');
      single = [await mcpToolsLatency({ api: `http://127.0.0.1:${apiPort}`, fixture, apiPid: api.pid })];
    }
    if (wants('R2', 'R3', 'cold')) {
      log('cold: first-time latency of the relational filter and of search, one request at a time');
      cold = await coldLatencies(`http://127.0.0.1:${apiPort}`, fixture);
    }
  } finally {
    await stopChild(bare);
  }
  if (wants('mixed')) {
    log('mixed: 29 connections reading six lists with exact totals, alone and with 3 connections creating and updating');
    mixed = await benchMixed({ api: `http://127.0.0.1:${apiPort}`, fixture, duration });
  }
  if (wants('cdn')) {
    log('cdn: read keys\' lists through Varnish (docs/cdn/varnish.vcl) and straight to Tabula, alone and under a 90/10 read/write mix');
    cdn = await benchCdn({ apiEnv, fixture, duration, connections, pairs, log });
  }
  if (wants('replicas')) {
    log('replicas: Q1 and Q3 on an API with a streaming replica against one on the primary alone (a second cluster of its own)');
    replicas = await benchReplicas({ apiEnv, rows, duration, connections, pairs, log });
  }
  if (wide) {
    // Last of the scenarios on the seeded table: it adds a column to it.
    schema = await benchSchema({ api: `http://127.0.0.1:${apiPort}`, fixture, rows, wide, log });
  }
  if (wants('s3')) {
    log('s3: 1 GiB uploaded through an API with STORAGE_DRIVER=s3 (s3rver), then downloaded; the API\'s RSS throughout');
    s3 = await benchS3({ apiEnv, fixture, log });
  }
  if (wantsLogging) {
    log(`logging: Q1 with request logging on and off, two APIs in one process, ${args['logging-pairs']} pairs of 2 s runs`);
    // The inserts are part of what logging costs on a machine shared with PostgreSQL.
    const ingest = await startChild('workers/main.ts', { ...apiEnv, WORKERS: 'request-logs,log-rollup' });
    try {
      // The scenarios above were logged with no worker running: their backlog is ingested first,
      // or it would land on the first runs.
      await logBacklogIngested(db.url);
      const q1 = (await scenarios({ api: `http://127.0.0.1:${apiPort}`, bare: `http://127.0.0.1:${barePort}`, fixture, rows })).find((s) => s.name === 'Q1')!;
      const loggingPairs = Number(args['logging-pairs']);
      logging = await measureLoggingCost(
        async () => {
          const { child, urls } = await startLoggingPair(apiEnv);
          const at = (url: string) => ({ ...q1.ours, url: q1.ours.url.replace(`http://127.0.0.1:${apiPort}`, url) });
          return { on: at(urls.on), off: at(urls.off), stop: () => stopChild(child) };
        },
        { connections, pairs: loggingPairs, processes: Math.min(3, loggingPairs), runSeconds: 2, log },
      );
      log('logging: the pipeline alone, 4,000 entries/s, CPU per entry by process');
      loggingPipeline = await measureLoggingPipeline({ databaseUrl: db.url, fixture, worker: ingest, rate: 4000, seconds: duration });
    } finally {
      await stopChild(ingest);
    }
  }
  if (Number(args.events) > 0 && wants('events')) {
    log(`events: ${args.events} events through the outbox, relay, fan-out and delivery`);
    events = await benchEvents({ api: `http://127.0.0.1:${apiPort}`, databaseUrl: db.url, fixture, count: Number(args.events), log });
  }
  // After the others: it leaves a large log table behind.
  if (Number(args['log-entries']) > 0 && wants('log-scale')) {
    log(`log-scale: ${args['log-entries']} request log entries, then the log list`);
    logScale = await benchLogScale({ api: `http://127.0.0.1:${apiPort}`, databaseUrl: db.url, fixture, entries: Number(args['log-entries']), log });
  }
  // Last: its copies add the bench table's rows again to the shared contents table.
  if (wants('E1-copy')) {
    copyResult = await benchCopy({ api: `http://127.0.0.1:${apiPort}`, databaseUrl: db.url, fixture, log });
  }
} finally {
  await stopChild(api);
  await db.stop();
}

/** Waits until the stored log entries stop growing (the queued backlog is ingested). */
async function logBacklogIngested(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let last = -1;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const { rows } = await client.query<{ n: string }>('select coalesce(sum(entries), 0) as n from request_log_segment');
      if (Number(rows[0].n) === last) return;
      last = Number(rows[0].n);
    }
  } finally {
    await client.end();
  }
}

const pad = (s: string, n: number) => s.padEnd(n);
const num = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? '-' : n.toFixed(digits));
console.log(`\nTabula benchmark: ${rows} rows, ${connections} connections, ${duration} s per run\n`);
console.log(`${pad('query', 14)}${pad('ours req/s', 12)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('errors', 8)}${pad('bare req/s', 12)}${pad('bare p99', 10)}${pad('ratio', 8)}${pad('cpu µs ours/bare', 18)}target`);
for (const r of results) {
  const cpu = `${num(r.ours.serverCpuMicros)}/${num(r.bare?.serverCpuMicros)}`;
  console.log(
    `${pad(r.scenario, 14)}${pad(num(r.ours.requestsPerSecond), 12)}${pad(num(r.ours.p50, 1), 8)}${pad(num(r.ours.p99, 1), 8)}${pad(String(r.ours.errors), 8)}` +
      `${pad(num(r.bare?.requestsPerSecond), 12)}${pad(num(r.bare?.p99, 1), 10)}${pad(num(r.ratio, 2), 8)}${pad(cpu, 18)}${r.target}`,
  );
}
for (const s of single) console.log(`${s.name}: ${s.requests} calls one at a time, p50 ${num(s.p50, 1)} ms, p99 ${num(s.p99, 1)} ms, max ${num(s.max, 1)} ms, API CPU ${num(s.cpu, 2)} ms per call (target ${s.target})`);
for (const c of cold) console.log(`${c.name}: ${c.requests} distinct queries, p50 ${num(c.p50, 1)} ms, p99 ${num(c.p99, 1)} ms, max ${num(c.max, 1)} ms (target p99 < 50 ms)`);
if (soakReport) {
  console.log(`\nsoak: ${soakReport.windows.length} windows of 30 s, mixed load`);
  console.log(`${pad('t (s)', 8)}${pad('req/s', 10)}${pad('p99 ms', 9)}${pad('errors', 8)}${pad('rss MB', 9)}heap MB`);
  for (const w of soakReport.windows) {
    console.log(`${pad(String(w.at), 8)}${pad(num(w.requestsPerSecond), 10)}${pad(num(w.p99), 9)}${pad(String(w.errors), 8)}${pad(num(w.rssMb), 9)}${num(w.heapUsedMb, 1)}`);
  }
  console.log(
    `errors ${soakReport.errors} (must be 0); memory trend over the second half: heap ${soakReport.heapTrendMbPerMinute.toFixed(2)} MB/min, ` +
      `rss ${soakReport.rssTrendMbPerMinute.toFixed(2)} MB/min`,
  );
  if (soakReport.errors > 0) process.exitCode = 1;
}
if (mixed) {
  const m = mixed;
  console.log(
    `\nlists under writes (mixed): reads alone ${num(m.readOnly.readsPerSecond)} req/s p99 ${num(m.readOnly.p99, 1)} ms; ` +
      `with writes ${num(m.mixed.readsPerSecond)} req/s p99 ${num(m.mixed.p99, 1)} ms = ${(100 * m.readShare).toFixed(0)} % of reads alone ` +
      `(targets >= 50 %, p99 < 30 ms); writes ${num(m.mixed.writesPerSecond)} req/s p99 ${num(m.mixed.writeP99, 1)} ms, ` +
      `${(100 * m.writeShare).toFixed(1)} % of requests; errors ${m.readOnly.errors + m.mixed.errors}`,
  );
}
if (logging) {
  console.log(
    `\nrequest logging, Q1: on ${logging.onRequestsPerSecond.toFixed(0)} req/s, off ${logging.offRequestsPerSecond.toFixed(0)} req/s: ` +
      `costs ${logging.costPercent.toFixed(1)} ± ${logging.confidencePercent.toFixed(1)} % of throughput (95 % interval over ${logging.pairs} pairs of runs; target < 5 %); ` +
      `by process: ${logging.processCostPercents.map((p) => p.toFixed(1)).join(', ')} %` +
      (logging.onCpuMicros !== null && logging.offCpuMicros !== null
        ? `; machine CPU per request ${logging.onCpuMicros.toFixed(0)} vs ${logging.offCpuMicros.toFixed(0)} µs`
        : ''),
  );
}
if (loggingPipeline) {
  const p = loggingPipeline;
  const micros = (n: number | null) => (n === null ? '-' : n.toFixed(1));
  const sum = p.apiMicros + (p.postgresMicros ?? 0) + (p.workerMicros ?? 0);
  console.log(
    `request logging, the work itself at ${p.entriesPerSecond} entries/s: API ${micros(p.apiMicros)} + PostgreSQL ${micros(p.postgresMicros)} + worker ${micros(p.workerMicros)} = ${sum.toFixed(1)} µs per request` +
      (logging?.offCpuMicros ? `, ${((100 * sum) / logging.offCpuMicros).toFixed(1)} % of an unlogged Q1's ${logging.offCpuMicros.toFixed(0)} µs of machine CPU` : ''),
  );
}
if (logScale) {
  console.log(`\nlog list at ${logScale.entries} entries (${logScale.segments} segments, ${logScale.tableSize}), five runs each:`);
  for (const q of logScale.queries) console.log(`  ${pad(q.query, 28)}median ${num(q.medianMs, 1)} ms, max ${num(q.maxMs, 1)} ms, total ${q.total ?? '-'}`);
}
if (events) {
  console.log('\nwebhook deliveries (outbox → relay → fan-out → delivery → local receiver)');
  for (const t of events.throughput) console.log(`  ${t.workers} worker process(es): ${t.deliveriesPerSecond.toFixed(0)} deliveries/s (${t.events} events; target >= 500 with one)`);
  console.log(`  end-to-end delay at a steady write rate: p50 ${events.latency.p50Ms} ms, p99 ${events.latency.p99Ms} ms over ${events.latency.events} events (target p99 < 1000 ms)`);
}
if (io) {
  console.log(`\nimport: ${io.importRows} NDJSON rows in ${io.importSeconds.toFixed(1)} s = ${num(io.importRowsPerSecond)} rows/s (target >= 20,000), API RSS growth ${io.importRssGrowthMb.toFixed(0)} MB (target < 100; V8 heap reserved +${io.importHeapGrowthMb.toFixed(0)} MB)`);
  console.log(`export: ${io.exportRows} rows in ${io.exportSeconds.toFixed(1)} s = ${num(io.exportRowsPerSecond)} rows/s (target >= 100,000 at 1,000,000 rows), API RSS growth ${io.exportRssGrowthMb.toFixed(0)} MB (target < 50; V8 heap reserved +${io.exportHeapGrowthMb.toFixed(0)} MB)`);
}
if (copyResult) {
  console.log(
    `\nproject copy (E1-copy): ${copyResult.rows} rows in ${copyResult.contentsSeconds.toFixed(1)} s (target < 30 s at 100,000 rows); ` +
      `schema only ${copyResult.schemaSeconds.toFixed(2)} s`,
  );
}
if (realtime) {
  const r = realtime;
  console.log(`\nrealtime (SSE): ${r.subscribers} subscribers on one API process, ${r.writes} writes at ${r.writesPerSecond.toFixed(0)}/s`);
  console.log(`  events received per subscriber: min ${r.receivedMin}, max ${r.receivedMax} (target: all ${r.writes})`);
  console.log(`  creation to receipt: p50 ${num(r.p50Ms)} ms, p99 ${num(r.p99Ms)} ms, max ${num(r.maxMs)} ms (target p99 < 250 ms)`);
  console.log(`  API RSS per idle subscriber: ${r.rssPerSubscriberKb.toFixed(1)} KB (target < 50 KB)`);
  console.log(`  ${r.otherProcess.subscribers} subscribers on a second API process: min ${r.otherProcess.receivedMin} events, p50 ${num(r.otherProcess.p50Ms)} ms, p99 ${num(r.otherProcess.p99Ms)} ms (target p99 < 500 ms)`);
  console.log(
    `  W1 alone ${num(r.w1Alone.requestsPerSecond)} req/s, with 1,000 subscribers connected ${num(r.w1WithSubscribers.requestsPerSecond)} req/s: ` +
      `${r.w1Ratio.toFixed(2)} (target >= 0.85)`,
  );
}
if (s3) {
  const line = (what: string, t: S3Result['upload']) =>
    `  ${what}: ${t.seconds.toFixed(1)} s, ${t.mibPerSecond.toFixed(0)} MiB/s, API RSS peak ${t.peakRssMb.toFixed(0)} MB = +${t.rssGrowthMb.toFixed(0)} MB ` +
    `(target < +100 MB); SHA-256 ${t.sha256Matches ? 'matches' : 'DIFFERS'}`;
  console.log(`\ns3 storage: ${s3.bytes / 2 ** 20} MiB through the API to s3rver, API RSS before ${s3.baselineRssMb.toFixed(0)} MB`);
  console.log(line('upload', s3.upload));
  console.log(line('download', s3.download));
  if (!s3.upload.sha256Matches || !s3.download.sha256Matches) process.exitCode = 1;
}
if (replicas.length > 0) {
  console.log('\nread replicas (one streaming replica on this machine; target: routed >= 0.95 x primary alone)');
  for (const r of replicas) {
    console.log(
      `  ${pad(r.scenario, 4)} primary alone ${num(r.primaryAlone)} req/s, routed ${num(r.routed)} req/s: ${r.ratio.toFixed(2)}; ` +
        `${(100 * r.replicaShare).toFixed(0)} % of sampled routed reads answered by the replica; errors ${r.errors}`,
    );
  }
}
if (images) {
  const i = images;
  const sorted = [...i.firstMs].sort((a, b) => a - b);
  console.log(`\nimage transformations: ${i.firstMs.length} JPEGs of ${i.megapixels} megapixels (${(i.originalBytes / 1e6).toFixed(1)} MB), ?w=400&format=webp (${i.thumbnailBytes} bytes)`);
  console.log(`  first request (computed and stored): ${i.firstMs.map((ms) => ms.toFixed(0)).join(', ')} ms; median ${num(sorted[Math.floor(sorted.length / 2)])}, max ${num(sorted.at(-1))} ms (target < 500 ms)`);
  console.log(
    `  cached repeats (streamed from storage): ${num(i.cached.requestsPerSecond)} req/s, p50 ${num(i.cached.p50, 1)} ms, p99 ${num(i.cached.p99, 1)} ms, errors ${i.cached.errors} (target >= 1,000 req/s)`,
  );
  console.log(
    `  plain download of the same bytes: ${num(i.plain.requestsPerSecond)} req/s, p50 ${num(i.plain.p50, 1)} ms, p99 ${num(i.plain.p99, 1)} ms; ` +
      `cached thumbnails ${(i.cached.requestsPerSecond / i.plain.requestsPerSecond).toFixed(2)} of it`,
  );
}
if (releases) {
  const r = releases;
  const late = (pick: (l: ReleaseResult['lateness'][number]) => number) => r.lateness.map(pick).map((ms) => ms.toFixed(0)).join(', ');
  console.log(
    `\nreleases (R1-release): publish of ${r.rows} rows (publish, publishDraft, unpublish) under the reads below: ${r.publishMs.map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
      `${r.rows} rows back, nothing else running: ${r.publishQuietMs.map((ms) => ms.toFixed(0)).join(', ')} ms (target < 2000 ms)`,
  );
  for (const mode of ['saturated', 'paced'] as const) {
    const reads = r.reads[mode];
    const how = mode === 'saturated' ? '8 at a time back to back' : `paced at ${r.pacedReadsPerSecond}/s`;
    console.log(
      `  list reads of another table, ${how}: p99 ${num(reads.p99Alone, 1)} ms alone (${reads.alone} reads), ${num(reads.p99During, 1)} ms while a release publishes (${reads.during} reads), ` +
        `${num(reads.p99Busy, 1)} ms while another process keeps one core busy as long (${reads.busy} reads)`,
    );
    const { band } = reads;
    if (band) {
      const verdict = (p: number) => (p > band.high ? 'above it' : 'within it');
      console.log(
        `    noise: the p99 of as many stretches of the same lengths with no release running falls in ${num(band.low, 1)}-${num(band.high, 1)} ms (95 %, median ${num(band.median, 1)}); ` +
          `during the publishes: ${verdict(reads.p99During)}, during the control: ${verdict(reads.p99Busy)}`,
      );
    }
  }
  console.log(`  read errors ${r.readErrors}`);
  console.log(`  scheduled (publishAt = now + 2 s): publishedAt - publishAt ${late((l) => l.publishedAtMs)} ms; seen published by a client polling every 20 ms ${late((l) => l.seenMs)} ms after publishAt (bound 1000 ms)`);
}
if (cdn) {
  console.log('\nHTTP caching: read keys through Varnish (purged by cdn-purge) vs straight to Tabula');
  for (const l of cdn.lists) {
    console.log(
      `  ${pad(l.name, 8)}Varnish ${num(l.cached.requestsPerSecond)} req/s p99 ${num(l.cached.p99, 1)} ms, Tabula ${num(l.direct.requestsPerSecond)} req/s p99 ${num(l.direct.p99, 1)} ms: ` +
        `${l.ratio.toFixed(1)}x (target >= 10x); errors ${l.cached.errors + l.direct.errors}; load from ${l.generator}`,
    );
  }
  const m = cdn.mixed;
  console.log(
    `  C3-mix  90/10: reads through Varnish ${num(m.cached.readsPerSecond)}/s (p99 ${num(m.cached.readP99, 1)} ms, writes ${num(m.cached.writesPerSecond)}/s), ` +
      `straight ${num(m.direct.readsPerSecond)}/s (p99 ${num(m.direct.readP99, 1)} ms, writes ${num(m.direct.writesPerSecond)}/s), ${num(m.writesAsked)} writes/s asked: ${m.ratio.toFixed(1)}x (target >= 5x); ` +
      `stalest sampled read ${num(m.maxStaleMs)} ms, ${m.staleOver1s} of ${m.cached.reads.length} over 1 s (target: none); errors ${m.cached.errors + m.direct.errors}; reads from ${m.generator}`,
  );
}
if (schema) {
  const { diff, apply } = schema;
  console.log(`\nschema as code: a 50-table, 1,000-column schema created by one apply in ${schema.setupSeconds.toFixed(1)} s`);
  console.log(`  S1 diff (${diff.changes} changes): p50 ${num(diff.p50, 1)} ms, p99 ${num(diff.p99, 1)} ms, max ${num(diff.max, 1)} ms (target p99 < 200 ms)`);
  console.log(
    `  S2 apply of a unique text column on ${apply.rows} rows: ${apply.seconds.toFixed(1)} s; reads during it: ${apply.reads} (${num(apply.readsPerSecond)}/s), ` +
      `p50 ${num(apply.p50, 1)} ms, p99 ${num(apply.p99, 1)} ms, max ${num(apply.max, 1)} ms, errors ${apply.readErrors} (target: no read > 1000 ms)`,
  );
}
const outDir = path.join(root, 'bench', 'results');
await mkdir(outDir, { recursive: true });
const file = path.join(outDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(file, JSON.stringify({ rows, duration, connections, at: new Date().toISOString(), results, single, cold, mixed, realtime, images, releases, io, copy: copyResult, s3, replicas, schema, cdn: cdn && { lists: cdn.lists, mixed: { ...cdn.mixed, cached: { ...cdn.mixed.cached, reads: undefined, acks: undefined }, direct: { ...cdn.mixed.direct, reads: undefined, acks: undefined } } }, logging, loggingPipeline, logScale, events, soak: soakReport }, null, 2));
console.log(`\nresults written to ${path.relative(process.cwd(), file)}`);
