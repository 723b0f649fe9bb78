/**
 * `npm run bench -- --only realtime` (targets: docs/performance.md#realtime):
 * 1. 1,000 SSE subscribers on one API process and 100 writes/s: every subscriber receives every
 *    event; time from the event's creation (before its commit) to receipt, p99 < 250 ms; the
 *    API's RSS per idle subscriber < 50 KB.
 * 2. 100 subscribers on a second API process during the same writes: p99 < 500 ms.
 * 3. W1 with 1,000 subscribers connected (to another table of the project) >= 85 % of W1 without.
 * The subscribers run in child processes of their own (bench/realtime-subscribers.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { measure, type LoadTarget, type Measurement } from './load.js';
import { adminToken, apiMemory, root, type Fixture } from './setup.js';

export interface RealtimeResult {
  subscribers: number;
  writes: number;
  writesPerSecond: number;
  /** Events each subscriber of the first process received: all of them should equal `writes`. */
  receivedMin: number;
  receivedMax: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  rssPerSubscriberKb: number;
  otherProcess: { subscribers: number; receivedMin: number; p50Ms: number | null; p99Ms: number | null };
  w1Alone: Measurement;
  w1WithSubscribers: Measurement;
  w1Ratio: number;
}

interface SubscriberReport {
  counts: number[];
  events: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the API is left idle before its RSS is read. */
const SETTLE_MS = 15_000;

interface Subscribers {
  child: ChildProcess;
  report(): Promise<SubscriberReport>;
  stop(): void;
}

/**
 * A child process with `count` open streams of `url` that counts the events whose data holds a
 * `title` starting with `titlePrefix`; resolves once every stream has started.
 */
async function subscribers(url: string, token: string, count: number, titlePrefix: string): Promise<Subscribers> {
  const child = fork(path.join(root, 'bench', 'realtime-subscribers.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, URL: url, TOKEN: token, COUNT: String(count), MATCH: `"title":"${titlePrefix}` },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(message: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (answer) => resolve(answer as T));
      child.send(message);
    });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await ask<{ started: number; failed: number }>('ready?');
    if (state.failed > 0) throw new Error(`${state.failed} of ${count} streams failed to open`);
    if (state.started === count) break;
    if (Date.now() > deadline) throw new Error(`only ${state.started} of ${count} streams started`);
    await sleep(200);
  }
  return { child, report: () => ask<SubscriberReport>('report'), stop: () => child.kill('SIGTERM') };
}


async function post(api: string, token: string, url: string, body: unknown) {
  const res = await fetch(api + url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

/** `perSecond` creates through the API for `seconds`, paced; answers how many succeeded. */
async function steadyWrites(api: string, fixture: Fixture, perSecond: number, seconds: number): Promise<number> {
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  let done = 0;
  const pending: Promise<unknown>[] = [];
  const started = Date.now();
  for (let i = 0; i < perSecond * seconds; i++) {
    const due = started + (i * 1000) / perSecond;
    if (due > Date.now()) await sleep(due - Date.now());
    pending.push(post(api, fixture.writeKey, contents, { data: { title: `live ${i}`, category: 'b', price: 1, qty: 1 }, status: 'DRAFT' }).then(() => done++));
  }
  await Promise.all(pending);
  return done;
}

export async function benchRealtime(env: {
  api: string;
  api2: string;
  fixture: Fixture;
  duration: number;
  connections: number;
  w1: LoadTarget;
  log: (line: string) => void;
}): Promise<RealtimeResult> {
  const { api, api2, fixture, log } = env;
  const stream = (base: string, tableId: string) => `${base}/v1/${fixture.projectId}/events/stream?types=contents.created&tableIds=${tableId}`;

  log('realtime: 1,000 subscribers on the first API process, 100 on the second');
  // RSS once V8 has collected what opening the streams left behind: its memory reducer runs
  // after some seconds of low allocation, and an idle stream allocates next to nothing.
  await sleep(SETTLE_MS);
  const rssBefore = (await apiMemory(api)).rss;
  const first: Subscribers[] = [];
  for (let i = 0; i < 10; i++) first.push(await subscribers(stream(api, fixture.tableId), fixture.writeKey, 100, 'live '));
  await sleep(SETTLE_MS);
  const rssAfter = (await apiMemory(api)).rss;
  const second = await subscribers(stream(api2, fixture.tableId), fixture.writeKey, 100, 'live ');
  let result: Omit<RealtimeResult, 'w1Alone' | 'w1WithSubscribers' | 'w1Ratio'>;
  try {
    log(`realtime: 100 writes/s for ${env.duration} s`);
    for (const s of [...first, second]) await s.report(); // zero the counters
    const started = Date.now();
    const writes = await steadyWrites(api, fixture, 100, env.duration);
    const writesPerSecond = (writes * 1000) / (Date.now() - started);
    // Every subscriber should have every event: wait for the last ones to arrive.
    await sleep(2000);
    const reports = await Promise.all(first.map((s) => s.report()));
    const other = await second.report();
    const counts = reports.flatMap((r) => r.counts);
    const merged = { p50: Math.max(...reports.map((r) => r.p50 ?? 0)), p99: Math.max(...reports.map((r) => r.p99 ?? 0)), max: Math.max(...reports.map((r) => r.max ?? 0)) };
    result = {
      subscribers: counts.length,
      writes,
      writesPerSecond,
      receivedMin: Math.min(...counts),
      receivedMax: Math.max(...counts),
      p50Ms: merged.p50,
      p99Ms: merged.p99,
      maxMs: merged.max,
      rssPerSubscriberKb: (rssAfter - rssBefore) / 1024 / counts.length,
      otherProcess: { subscribers: other.counts.length, receivedMin: Math.min(...other.counts), p50Ms: other.p50, p99Ms: other.p99 },
    };
  } finally {
    for (const s of [...first, second]) s.stop();
  }

  // W1's writes go to the bench table; these subscribers follow another table of the project.
  const quiet = await post(api, adminToken, `/v1/${fixture.projectId}/tables`, { key: `quiet_${Date.now()}`, name: 'Quiet' });
  await sleep(1000);
  log('realtime: W1 without subscribers');
  const w1Alone = await measure(env.w1, { duration: env.duration, connections: env.connections });
  log('realtime: W1 with 1,000 subscribers connected');
  const idle = [await subscribers(stream(api, quiet.id), fixture.writeKey, 500, 'none'), await subscribers(stream(api, quiet.id), fixture.writeKey, 500, 'none')];
  let w1WithSubscribers: Measurement;
  try {
    w1WithSubscribers = await measure(env.w1, { duration: env.duration, connections: env.connections });
  } finally {
    for (const s of idle) s.stop();
  }
  return { ...result, w1Alone, w1WithSubscribers, w1Ratio: w1WithSubscribers.requestsPerSecond / w1Alone.requestsPerSecond };
}
