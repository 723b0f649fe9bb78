import autocannon from 'autocannon';
import { apiMemory, type Fixture } from './setup.js';

export interface SoakWindow {
  /** Seconds since the soak started, at the end of the window. */
  at: number;
  requestsPerSecond: number;
  p99: number;
  errors: number;
  rssMb: number;
  heapUsedMb: number;
}

export interface SoakReport {
  windows: SoakWindow[];
  errors: number;
  /** Heap growth over the second half, by least squares, in MB per minute (near 0: no leak). */
  heapTrendMbPerMinute: number;
  rssTrendMbPerMinute: number;
}

interface Stream {
  share: number;
  method: 'GET' | 'POST' | 'PUT';
  next: () => { path: string; body?: string };
}

/**
 * A mix like a site's: mostly reads by id and lists, some filtered lists, creates and updates.
 * Each kind runs as its own autocannon instance on its share of the connections (one method per
 * instance: autocannon mis-measures when one connection switches between GET and POST).
 */
function mixedStreams(fixture: Fixture, contents: string): Stream[] {
  let written = 0;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  const filter = encodeURIComponent(JSON.stringify([{ i: 'category', w: 'eq', v: 'c' }, { i: 'price', w: 'between', v: [100, 500] }]));
  const sort = encodeURIComponent('[{"i":"price","o":"asc"}]');
  return [
    { share: 0.45, method: 'GET', next: () => ({ path: `${contents}/${pick(fixture.ids)}` }) },
    { share: 0.25, method: 'GET', next: () => ({ path: `${contents}?page=${1 + Math.floor(Math.random() * 20)}` }) },
    { share: 0.15, method: 'GET', next: () => ({ path: `${contents}?filter=${filter}&sort=${sort}` }) },
    {
      share: 0.1,
      method: 'POST',
      next: () => ({ path: contents, body: JSON.stringify({ data: { title: `soak ${++written}`, category: 'b', price: 12.5, qty: 3 } }) }),
    },
    { share: 0.05, method: 'PUT', next: () => ({ path: `${contents}/${pick(fixture.ids)}`, body: JSON.stringify({ data: { qty: Math.floor(Math.random() * 100) } }) }) },
  ];
}

/** One window of every stream at once; throughput summed, p99 the worst stream's. */
async function runWindow(api: string, token: string, streams: Stream[], connections: number, duration: number) {
  const results = await Promise.all(
    streams.map((stream) =>
      autocannon({
        url: api,
        method: stream.method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        connections: Math.max(1, Math.round(connections * stream.share)),
        duration,
        requests: [{ setupRequest: (request) => ({ ...request, ...stream.next() }) }],
      }),
    ),
  );
  return {
    requestsPerSecond: results.reduce((sum, r) => sum + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
  };
}

/** The API process's memory in MB (apiMemory). */
async function memoryOf(api: string): Promise<{ rssMb: number; heapUsedMb: number }> {
  const { rss, heapUsed } = await apiMemory(api);
  return { rssMb: rss / 2 ** 20, heapUsedMb: heapUsed / 2 ** 20 };
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/**
 * `npm run bench -- --soak`: mixed load for `minutes`, measured in windows, with the API's memory
 * sampled after each window; prints one line per window as it goes.
 */
export async function soak(opts: {
  api: string;
  fixture: Fixture;
  minutes: number;
  windowSeconds: number;
  connections: number;
  log: (line: string) => void;
}): Promise<SoakReport> {
  const contents = `/v1/${opts.fixture.projectId}/tables/${opts.fixture.tableId}/contents`;
  const streams = mixedStreams(opts.fixture, contents);
  const windows: SoakWindow[] = [];
  const started = Date.now();
  const end = started + opts.minutes * 60_000;
  while (Date.now() < end) {
    const duration = Math.max(1, Math.min(opts.windowSeconds, Math.round((end - Date.now()) / 1000)));
    const result = await runWindow(opts.api, opts.fixture.writeKey, streams, opts.connections, duration);
    const memory = await memoryOf(opts.api);
    const window: SoakWindow = { at: Math.round((Date.now() - started) / 1000), ...result, ...memory };
    windows.push(window);
    opts.log(
      `soak t=${window.at}s ${window.requestsPerSecond.toFixed(0)} req/s p99 ${window.p99} ms errors ${window.errors} ` +
        `rss ${window.rssMb.toFixed(0)} MB heap ${window.heapUsedMb.toFixed(1)} MB`,
    );
  }
  const secondHalf = windows.slice(Math.floor(windows.length / 2));
  const perMinute = (pick: (w: SoakWindow) => number) => slope(secondHalf.map((w) => [w.at / 60, pick(w)]));
  return {
    windows,
    errors: windows.reduce((sum, w) => sum + w.errors, 0),
    heapTrendMbPerMinute: perMinute((w) => w.heapUsedMb),
    rssTrendMbPerMinute: perMinute((w) => w.rssMb),
  };
}
