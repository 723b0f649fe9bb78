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

/** An API process started for one round, with request logging on or off. */
export interface LoggingSide {
  target: LoadTarget;
  stop(): Promise<void>;
}

const percentLost = (on: number, off: number) => (1 - on / off) * 100;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * Q1 against an API with request logging on and one with it off (same database, the log-ingest
 * worker running). Every round starts both processes afresh and warms them up alike: two
 * processes of the same code differ by up to a tenth in CPU per request for reasons of their
 * own (measured: ±30 µs on a ~250 µs request), and a process that ran other loads before would
 * carry its history into the comparison. Within a round the two are measured one after the
 * other, in alternating order, so that drift of a shared machine falls on both sides.
 */
export async function measureLoggingCost(
  start: (logging: boolean) => Promise<LoggingSide>,
  options: { duration: number; connections: number; rounds?: number },
): Promise<LoggingCost> {
  const run = { connections: options.connections, duration: Math.max(3, Math.round(options.duration / 2)) };
  const on: { rps: number; cpu: number | null }[] = [];
  const off: { rps: number; cpu: number | null }[] = [];
  for (let round = 0; round < (options.rounds ?? 6); round++) {
    const [logged, unlogged] = await Promise.all([start(true), start(false)]);
    try {
      await measure(logged.target, { ...run, duration: 3 });
      await measure(unlogged.target, { ...run, duration: 3 });
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const logging of order) {
        const result = await measure(logging ? logged.target : unlogged.target, run);
        (logging ? on : off).push({ rps: result.requestsPerSecond, cpu: result.machineCpuMicros });
      }
    } finally {
      await Promise.all([logged.stop(), unlogged.stop()]);
    }
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
