import { spawn, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { machineTicks, TICK_MICROS, treeTicks } from './cpu.js';

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** The same body for every request (built once by autocannon, as a GET without one is). */
  body?: string;
  /** A fresh path (and body) per request, e.g. a random id; `context` is the request's own (autocannon clears it before each). */
  next?: (context: Record<string, unknown>) => { path: string; body?: string; headers?: Record<string, string> };
  /** Reads each answer with its request's context, e.g. the version a row is at now. */
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

export interface Measurement {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and non-2xx answers. */
  errors: number;
  /** CPU time of the whole machine per request, in µs (null where /proc/stat cannot be read). */
  machineCpuMicros: number | null;
  /**
   * CPU time of the server process (`options.pid`, with its children) per request, in µs: what a
   * request costs the server, less sensitive than req/s to whatever else the machine runs.
   */
  serverCpuMicros?: number | null;
}

/** CPU time per request in µs, from clock ticks read before and after (null where they could not be read). */
const microsPerRequest = (before: number | null, after: number | null, requests: number) =>
  before === null || after === null || requests === 0 ? null : ((after - before) * TICK_MICROS) / requests;

/**
 * Two sides measured in the order a, b, b, a, `pairs` times (neither always runs first while the
 * machine's speed drifts), each side's runs combined.
 */
export async function alternated(pairs: number, a: () => Promise<Measurement>, b: () => Promise<Measurement>): Promise<{ a: Measurement; b: Measurement }> {
  const aRuns: Measurement[] = [];
  const bRuns: Measurement[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    aRuns.push(await a());
    bRuns.push(await b(), await b());
    aRuns.push(await a());
  }
  return { a: combined(aRuns), b: combined(bRuns) };
}

/**
 * Runs of one target as one measurement: the mean of their rates and CPU times (each run is as
 * long), the errors summed, and the latencies of the median run by rate.
 */
export function combined(runs: Measurement[]): Measurement {
  if (runs.length === 1) return runs[0]!;
  const mean = (pick: (m: Measurement) => number | null | undefined) => {
    const values = runs.map(pick);
    return values.some((v) => v === null || v === undefined) ? null : values.reduce<number>((sum, v) => sum + v!, 0) / values.length;
  };
  const median = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(runs.length / 2)]!;
  return {
    requestsPerSecond: mean((m) => m.requestsPerSecond)!,
    p50: median.p50,
    p99: median.p99,
    errors: runs.reduce((sum, m) => sum + m.errors, 0),
    machineCpuMicros: mean((m) => m.machineCpuMicros),
    serverCpuMicros: mean((m) => m.serverCpuMicros),
  };
}

/** One autocannon run (after a warm-up, one second by default) against a target. */
export async function measure(target: LoadTarget, options: { duration: number; connections: number; warmUp?: number; pid?: number }): Promise<Measurement> {
  const run = (duration: number) =>
    autocannon({
      url: target.url,
      method: target.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...target.headers },
      ...(target.body === undefined ? {} : { body: target.body }),
      connections: options.connections,
      duration,
      requests: target.next
        ? [
            {
              setupRequest: (request, context) => {
                const { path, body, headers } = target.next!(context as Record<string, unknown>);
                return { ...request, path, ...(body === undefined ? {} : { body }), ...(headers ? { headers: { ...request.headers, ...headers } } : {}) };
              },
              ...(target.onResponse ? { onResponse: (status: number, body: string, context: object) => target.onResponse!(status, body, context as Record<string, unknown>) } : {}),
            },
          ]
        : undefined,
    });
  if (options.warmUp !== 0) await run(options.warmUp ?? 1);
  const before = await machineTicks();
  const serverBefore = options.pid === undefined ? null : await treeTicks(options.pid);
  const result = await run(options.duration);
  const serverAfter = options.pid === undefined ? null : await treeTicks(options.pid);
  const after = await machineTicks();
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    machineCpuMicros: microsPerRequest(before, after, result.requests.total),
    ...(options.pid === undefined ? {} : { serverCpuMicros: microsPerRequest(serverBefore, serverAfter, result.requests.total) }),
  };
}

/** Whether wrk (Debian's `wrk`) is on this machine: a load generator in C, for what answers faster than autocannon can ask. */
export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/**
 * One wrk run (after a warm-up, one second by default) against a GET target: what a cache
 * answers is measured by the generator's own speed, and autocannon (one Node thread) tops out
 * near what Varnish answers on a core. One thread: the other core is the server's. Latencies from
 * wrk's distribution. `nice`: wrk runs at that lower priority, on what the machine leaves.
 */
export async function measureWithWrk(target: LoadTarget, options: { duration: number; connections: number; warmUp?: number; nice?: number }): Promise<Measurement> {
  if (target.method && target.method !== 'GET') throw new Error('measureWithWrk: GET targets only');
  const run = (duration: number) =>
    new Promise<string>((resolve, reject) => {
      const headers = Object.entries(target.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
      const args = ['-t1', `-c${options.connections}`, `-d${duration}s`, '--latency', ...headers, target.url];
      const child = options.nice === undefined ? spawn('wrk', args) : spawn('nice', ['-n', String(options.nice), 'wrk', ...args]);
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${out}`))));
    });
  if (options.warmUp !== 0) await run(options.warmUp ?? 1);
  const before = await machineTicks();
  const out = await run(options.duration);
  const after = await machineTicks();
  const ms = (label: string) => {
    const match = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(out);
    if (!match) return NaN;
    return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[match[2] as 'us' | 'ms' | 's'];
  };
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + [...out.matchAll(/(connect|read|write|timeout) (\d+)/g)].reduce((sum, m) => sum + Number(m[2]), 0);
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: ms('50'),
    p99: ms('99'),
    errors,
    machineCpuMicros: microsPerRequest(before, after, total),
  };
}

