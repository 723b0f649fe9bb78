import { measure, type LoadTarget } from './load.js';

export interface LoggingCost {
  onRequestsPerSecond: number;
  offRequestsPerSecond: number;
  /** Throughput lost to request logging, in percent of the unlogged figure. */
  costPercent: number;
  /** The cost in each round (a fresh pair of processes), to show how much the figures scatter. */
  pairCostPercents: number[];
  /** Machine CPU per request (API, PostgreSQL, worker, load generator), on and off, in µs. */
  onCpuMicros: number | null;
  offCpuMicros: number | null;
}

/** An API process started for one round, with request logging on or off. */
export interface LoggingSide {
  target: LoadTarget;
  stop(): Promise<void>;
}

const percentLost = (on: number, off: number) => (1 - on / off) * 100;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * Q1 against an API with request logging on and one with it off (same database, the log-ingest
 * worker running). Two processes of the same code differ by up to a tenth in speed for their
 * whole life (an A/A run, both with logging off, measured 12.8 % between them once and 1.6 %
 * another time), and on this machine consecutive runs drift by ±15 %. So every round starts a
 * fresh pair (warmed up alike), measures it in ABBA order (on off off on, or off on on off),
 * which cancels drift that is linear over the round and any advantage of going first, and the
 * rounds average the processes' own offsets.
 */
export async function measureLoggingCost(
  start: (logging: boolean) => Promise<LoggingSide>,
  options: { duration: number; connections: number; rounds?: number; log?: (line: string) => void },
): Promise<LoggingCost> {
  const run = { connections: options.connections, duration: Math.max(3, Math.round(options.duration / 2)) };
  const on: { rps: number; cpu: number | null }[] = [];
  const off: { rps: number; cpu: number | null }[] = [];
  for (let round = 0; round < (options.rounds ?? 6); round++) {
    const [logged, unlogged] = await Promise.all([start(true), start(false)]);
    try {
      for (let warm = 0; warm < 2; warm++) {
        await measure(logged.target, { ...run, duration: 3 });
        await measure(unlogged.target, { ...run, duration: 3 });
      }
      const order = round % 2 === 0 ? [true, false, false, true] : [false, true, true, false];
      for (const logging of order) {
        const result = await measure(logging ? logged.target : unlogged.target, run);
        (logging ? on : off).push({ rps: result.requestsPerSecond, cpu: result.machineCpuMicros });
        options.log?.(`round ${round + 1}, logging ${logging ? 'on ' : 'off'}: ${result.requestsPerSecond.toFixed(0)} req/s, ${result.machineCpuMicros?.toFixed(0) ?? '-'} µs CPU per request`);
      }
    } finally {
      await Promise.all([logged.stop(), unlogged.stop()]);
    }
  }
  const onRequestsPerSecond = mean(on.map((r) => r.rps));
  const offRequestsPerSecond = mean(off.map((r) => r.rps));
  const cpu = (runs: { cpu: number | null }[]) => (runs.every((r) => r.cpu !== null) ? mean(runs.map((r) => r.cpu!)) : null);
  // One figure per round: its two on runs against its two off runs.
  const rounds = Array.from({ length: on.length / 2 }, (_, i) =>
    percentLost((on[2 * i].rps + on[2 * i + 1].rps) / 2, (off[2 * i].rps + off[2 * i + 1].rps) / 2),
  );
  return {
    onRequestsPerSecond,
    offRequestsPerSecond,
    costPercent: percentLost(onRequestsPerSecond, offRequestsPerSecond),
    pairCostPercents: rounds,
    onCpuMicros: cpu(on),
    offCpuMicros: cpu(off),
  };
}
