/**
 * `npm run bench -- --only R1-release` (docs/releases.md):
 * - the publish of a release of 1,000 rows (400 drafts to publish, 300 pending drafts of live
 *   rows to publish, 300 live rows to unpublish) in a table of its own: its answer time (target
 *   < 2 s), over `rounds` releases, while the reads below run; then a release of the same rows
 *   back (1,000 status changes) published with nothing else running;
 * - list reads of the bench table (another table) while each publish runs, against the same reads
 *   just before it with no release running: p99 of both, `rounds` releases under 8 reads at a
 *   time back to back (all the machine answers: the publish can only take its share from them),
 *   then `rounds` under reads paced at PACED_READS a second (a site's traffic with room to spare:
 *   does the publish get in their way?); the reads come from a process of their own
 *   (bench/read-probe.ts), and after each publish the same reads run while another process keeps
 *   one core busy for as long (bench/busy-loop.ts: the control, what any job of that length does
 *   to them on this machine);
 * - scheduled releases (publishAt = now + 2 s, 10 rows) with one publisher worker running:
 *   publishedAt - publishAt, and when a client polling every 20 ms first saw it published
 *   (the documented bound: 1 s).
 */
import { randomUUID } from 'node:crypto';
import { fork, type Serializable } from 'node:child_process';
import path from 'node:path';
import { adminToken, root, startChild, stopChild, type Fixture } from './setup.js';
import { percentile } from './percentile.js';
import { noiseBand, type NoiseBand, type Read, type Window } from './noise-band.js';

/** Paced reads a second: about a third of what this machine answers to 8 back-to-back readers. */
const PACED_READS = 400;

export interface ReleaseResult {
  rows: number;
  /** Each publish while the reads run. */
  publishMs: number[];
  /** A release of the same 1,000 rows back the other way (unpublish, publish), with no reads running. */
  publishQuietMs: number[];
  /**
   * p99 (ms) and count of the reads of another table with no release running, while one
   * publishes, and while a process of its own keeps one core busy for as long (the control).
   */
  reads: Record<'saturated' | 'paced', { p99Alone: number; p99During: number; p99Busy: number; alone: number; during: number; busy: number; band: NoiseBand | undefined }>;
  pacedReadsPerSecond: number;
  readErrors: number;
  lateness: { publishedAtMs: number; seenMs: number }[];
}

const q = (params: Record<string, unknown>) =>
  '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');

const p99 = (values: number[]) => percentile(values, 99) ?? NaN;

/** The reads of one mode: each window with nothing running, and the reads of all three kinds. */
interface ModeReads {
  quiet: Window[];
  alone: Read[];
  during: Read[];
  busy: Read[];
  /** How long each publish (and each control after it) took, in ms. */
  lengths: number[];
}

const latencies = (reads: Read[]) => reads.map(([, ms]) => ms);

/**
 * The p99 and count of reads with no release running, while one publishes, and during the
 * control; and the noise band of the p99 over as many stretches of the publishes' lengths with no
 * release running (bench/noise-band.ts).
 */
const summary = ({ quiet, alone, during, busy, lengths }: ModeReads) => ({
  p99Alone: p99(latencies(alone)),
  p99During: p99(latencies(during)),
  p99Busy: p99(latencies(busy)),
  alone: alone.length,
  during: during.length,
  busy: busy.length,
  band: noiseBand(quiet, alone, lengths),
});

/** A bench process of its own (`bench/<script>`), asked over IPC one message at a time. */
function helper(script: string, env: Record<string, string>) {
  const child = fork(path.join(root, 'bench', script), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(message: Serializable) =>
    new Promise<T>((resolve) => {
      child.once('message', (answer) => resolve(answer as T));
      child.send(message);
    });
  return { child, ask };
}

async function eachParallel<T>(items: T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

export async function benchReleases(env: { api: string; apiEnv: Record<string, string>; fixture: Fixture; rounds: number; log: (line: string) => void }): Promise<ReleaseResult> {
  const { api, fixture, log } = env;
  const call = async (method: string, path: string, body?: unknown, token = fixture.writeKey, raw?: { text: string; type: string }) => {
    const res = await fetch(api + path, {
      method,
      // No body, no Content-Type (an empty JSON body is a 400).
      headers: { authorization: `Bearer ${token}`, ...(raw || body !== undefined ? { 'content-type': raw?.type ?? 'application/json' } : {}) },
      body: raw ? raw.text : body === undefined ? undefined : JSON.stringify(body),
    }).catch((error: Error) => {
      throw new Error(`${method} ${path}: ${error.message} (${String((error.cause as Error | undefined)?.message)})`);
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const project = `/v1/${fixture.projectId}`;
  const table = await call('POST', `${project}/tables`, { key: 'launches', name: 'Launches' }, adminToken);
  await call('POST', `${project}/tables/${table.id}/columns`, { name: 'title', type: 'text' }, adminToken);
  const contents = `${project}/tables/${table.id}/contents`;
  const importRows = async (count: number, status: string, label: string) => {
    const ids = Array.from({ length: count }, () => randomUUID());
    const text = ids.map((id, n) => JSON.stringify({ id, data: { title: `${label} ${n}` }, status })).join('\n');
    await call('POST', `${contents}/import`, undefined, fixture.writeKey, { text, type: 'application/x-ndjson' });
    return ids;
  };
  const release = async (name: string, items: { id: string; action: string }[], publishAt?: string) => {
    const created = await call('POST', `${project}/releases`, { name, ...(publishAt ? { publishAt } : {}) });
    await eachParallel(items, 16, async ({ id, action }) => {
      await call('POST', `${project}/releases/${created.id}/items`, { tableId: table.id, contentsId: id, action });
    });
    return created.id as string;
  };

  // Reads of the bench table, from a process of their own (bench/read-probe.ts).
  const reads = [
    q({}),
    q({ filter: [{ i: 'category', w: 'eq', v: 'b' }] }),
    q({ filter: [{ i: 'price', w: 'lt', v: 100 }], sort: [{ i: 'price', o: 'desc' }], page: 2 }),
  ].map((query) => `${api}/v1/${fixture.projectId}/tables/${fixture.tableId}/contents${query}`);
  const probe = helper('read-probe.ts', { URLS: JSON.stringify(reads), TOKEN: fixture.writeKey });
  const busy = helper('busy-loop.ts', {});
  const spin = (busyMs: number) => busy.ask({ busyMs });
  const now = () => performance.timeOrigin + performance.now();
  let readErrors = 0;
  /**
   * Runs `work` under reads: 8 at a time back to back (`saturated`: as many as the machine
   * answers), or `paced` at PACED_READS per second whatever the answers take (a site's traffic);
   * the reads due while it ran.
   */
  const readWhile = async (mode: 'saturated' | 'paced', work: () => Promise<unknown>) => {
    await probe.ask({ start: mode, perSecond: PACED_READS });
    const from = now();
    let to: number;
    try {
      await work();
    } finally {
      to = now();
    }
    const { samples, errors } = await probe.ask<{ samples: Read[]; errors: number }>('stop');
    readErrors += errors;
    return { ms: to - from, window: { from, to }, reads: samples.filter(([due]) => due >= from && due < to) };
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const publishMs: number[] = [];
  const publishQuietMs: number[] = [];
  const modeReads = (): ModeReads => ({ quiet: [], alone: [], during: [], busy: [], lengths: [] });
  const byMode = { saturated: modeReads(), paced: modeReads() };
  let round = 0;
  try {
    for (const mode of ['saturated', 'paced'] as const) {
      for (let r = 0; r < env.rounds; r++, round++) {
        log(`R1-release: round ${round + 1} (${mode} reads): 1,000 rows and their release`);
        const drafts = await importRows(400, 'DRAFT', `draft ${round}`);
        const revised = await importRows(300, 'PUBLISHED', `revised ${round}`);
        const live = await importRows(300, 'PUBLISHED', `live ${round}`);
        await eachParallel(revised, 16, async (id) => {
          await call('PUT', `${contents}/${id}`, { data: { title: `revised ${round} ${id}` }, draft: true });
        });
        const items = [
          ...drafts.map((row) => ({ id: row, action: 'publish' })),
          ...revised.map((row) => ({ id: row, action: 'publishDraft' })),
          ...live.map((row) => ({ id: row, action: 'unpublish' })),
        ];
        const id = await release(`launch ${round}`, items);
        // The same reads with no release running, as long as the last publish took (at least 2 s).
        const alone = await readWhile(mode, () => sleep(Math.max(2000, publishMs.at(-1) ?? 0)));
        byMode[mode].quiet.push(alone.window);
        byMode[mode].alone.push(...alone.reads);
        const timed = await readWhile(mode, () => call('POST', `${project}/releases/${id}/publish`));
        publishMs.push(timed.ms);
        byMode[mode].during.push(...timed.reads);
        byMode[mode].lengths.push(timed.ms);
        // The control: one core kept busy by a process of its own for as long as the publish took.
        byMode[mode].busy.push(...(await readWhile(mode, () => spin(timed.ms))).reads);
        // Its rows back the other way, published with no reads running.
        const back = await release(`back ${round}`, [
          ...drafts.map((row) => ({ id: row, action: 'unpublish' })),
          ...live.map((row) => ({ id: row, action: 'publish' })),
          ...revised.map((row) => ({ id: row, action: 'unpublish' })),
        ]);
        const quiet = performance.now();
        await call('POST', `${project}/releases/${back}/publish`);
        publishQuietMs.push(performance.now() - quiet);
        log(`R1-release: round ${round + 1}: publish ${timed.ms.toFixed(0)} ms under ${mode} reads (${timed.reads.length} reads meanwhile), ${publishQuietMs.at(-1)!.toFixed(0)} ms alone`);
      }
    }
  } finally {
    probe.child.kill('SIGTERM');
    busy.child.kill('SIGTERM');
  }

  log('R1-release: scheduled releases (publishAt = now + 2 s) with a publisher worker');
  const worker = await startChild('workers/main.ts', { ...env.apiEnv, WORKERS: 'publisher' });
  const lateness: { publishedAtMs: number; seenMs: number }[] = [];
  try {
    // The first one waits for the worker to start; it is not counted.
    for (let run = 0; run <= 5; run++) {
      const rows = await importRows(10, 'DRAFT', `scheduled ${run}`);
      const publishAt = Date.now() + 2000;
      const id = await release(`scheduled ${run}`, rows.map((row) => ({ id: row, action: 'publish' })), new Date(publishAt).toISOString());
      for (;;) {
        // The list, not the release itself: reading an open release tries its items (a dry run).
        const read = ((await call('GET', `${project}/releases?size=5&withCount=false`)).list as { id: string; status: string; publishedAt: string }[]).find((r) => r.id === id)!;
        if (read.status === 'published') {
          if (run > 0) lateness.push({ publishedAtMs: Date.parse(read.publishedAt) - publishAt, seenMs: Date.now() - publishAt });
          break;
        }
        await sleep(20);
      }
    }
  } finally {
    await stopChild(worker);
  }
  return {
    rows: 1000,
    publishMs,
    publishQuietMs,
    reads: { saturated: summary(byMode.saturated), paced: summary(byMode.paced) },
    pacedReadsPerSecond: PACED_READS,
    readErrors,
    lateness,
  };
}
