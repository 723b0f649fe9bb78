import { measure, type LoadTarget } from './load.js';

export interface LoggingCost {
  onRequestsPerSecond: number;
  offRequestsPerSecond: number;
  /** Throughput lost to request logging, in percent of the unlogged figure. */
  costPercent: number;
  /** The cost of each on/off pair, to show how much the machine drifted between runs. */
  pairCostPercents: number[];
  /** Machine CPU per request (API, PostgreSQL, worker, load generator), on and off, in µs. */
  onCpuMicros: number | null;
  offCpuMicros: number | null;
}

/** An API process started for the comparison, with request logging on or off. */
export interface LoggingSide {
  target: LoadTarget;
  stop(): Promise<void>;
}

const percentLost = (on: number, off: number) => (1 - on / off) * 100;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * Q1 against an API with request logging on and one with it off (same database, the log-ingest
 * worker running). Both are started afresh for this (an API that ran the other scenarios before
 * would carry their history into the comparison) and warmed up alike, then measured in short runs
 * in ABBA order (on off, off on, on off, ...): on this machine consecutive runs of the same
 * process drift by ±15 % for reasons of the machine's own, and that order cancels drift that is
 * linear over a pair of pairs as well as any advantage of going first.
 */
export async function measureLoggingCost(
  start: (logging: boolean) => Promise<LoggingSide>,
  options: { duration: number; connections: number; pairs?: number; log?: (line: string) => void },
): Promise<LoggingCost> {
  const run = { connections: options.connections, duration: Math.max(3, Math.round(options.duration / 2)) };
  const on: { rps: number; cpu: number | null }[] = [];
  const off: { rps: number; cpu: number | null }[] = [];
  const [logged, unlogged] = await Promise.all([start(true), start(false)]);
  try {
    for (let warm = 0; warm < 2; warm++) {
      await measure(logged.target, { ...run, duration: 3 });
      await measure(unlogged.target, { ...run, duration: 3 });
    }
    for (let pair = 0; pair < (options.pairs ?? 8); pair++) {
      const order = pair % 4 === 1 || pair % 4 === 2 ? [false, true] : [true, false];
      for (const logging of order) {
        const result = await measure(logging ? logged.target : unlogged.target, run);
        (logging ? on : off).push({ rps: result.requestsPerSecond, cpu: result.machineCpuMicros });
        options.log?.(`pair ${pair + 1}, logging ${logging ? 'on ' : 'off'}: ${result.requestsPerSecond.toFixed(0)} req/s, ${result.machineCpuMicros?.toFixed(0) ?? '-'} µs CPU per request`);
      }
    }
  } finally {
    await Promise.all([logged.stop(), unlogged.stop()]);
  }
  const onRequestsPerSecond = mean(on.map((r) => r.rps));
  const offRequestsPerSecond = mean(off.map((r) => r.rps));
  const cpu = (runs: { cpu: number | null }[]) => (runs.every((r) => r.cpu !== null) ? mean(runs.map((r) => r.cpu!)) : null);
  return {
    onRequestsPerSecond,
    offRequestsPerSecond,
    costPercent: percentLost(onRequestsPerSecond, offRequestsPerSecond),
    pairCostPercents: on.map((r, i) => percentLost(r.rps, off[i].rps)),
    onCpuMicros: cpu(on),
    offCpuMicros: cpu(off),
  };
}
