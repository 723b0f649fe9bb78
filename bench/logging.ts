import { measure, type LoadTarget } from './load.js';

export interface LoggingCost {
  onRequestsPerSecond: number;
  offRequestsPerSecond: number;
  /** Throughput lost to request logging, in percent: the mean over paired runs. */
  costPercent: number;
  /** Half the width of its 95 % confidence interval, in percentage points. */
  confidencePercent: number;
  /** Paired runs (one with logging on, one off, back to back). */
  pairs: number;
  /** The cost measured by each process, to show how much processes differ. */
  processCostPercents: number[];
  /** Machine CPU per request (API, PostgreSQL, worker, load generator), on and off, in µs. */
  onCpuMicros: number | null;
  offCpuMicros: number | null;
}

/** One process serving Q1 twice: through an API with request logging on and one with it off. */
export interface LoggingPair {
  on: LoadTarget;
  off: LoadTarget;
  stop(): Promise<void>;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
/**
 * A pause after each run: the logged run's last hand-over (within 500 ms) and its ingestion
 * would otherwise land in the next run, charged to the unlogged API when that comes next.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));

/**
 * Q1's throughput with request logging on and off (the log-ingest worker running). This machine
 * is noisy in two ways, and the protocol answers both:
 * - Two processes of the same code differ by up to a tenth in speed for their whole life (A/A
 *   runs, both with logging off, measured 12.8 % and 1.6 % apart). So the two APIs compared run
 *   in one process (bench/logging-pair.ts): same heap, garbage collector and compiled code.
 * - The same process's throughput moves by ±15 % from one run of a few seconds to the next. So
 *   the runs are short and many: each pair is a run with logging on and one with it off, back to
 *   back (in alternating order), and the figure is the mean of the pairs' costs with its 95 %
 *   confidence interval. A few fresh processes share the pairs.
 * What sharing a process leaves out: garbage that the logged API leaves for a later major
 * collection may be collected during an unlogged run (the old generation is the process's).
 */
export async function measureLoggingCost(
  start: () => Promise<LoggingPair>,
  options: { connections: number; pairs: number; processes: number; runSeconds: number; log?: (line: string) => void },
): Promise<LoggingCost> {
  const run = { connections: options.connections, duration: options.runSeconds, warmUp: 0 };
  const costs: number[] = [];
  const on: { rps: number; cpu: number | null }[] = [];
  const off: { rps: number; cpu: number | null }[] = [];
  const processCostPercents: number[] = [];
  const perProcess = Math.ceil(options.pairs / options.processes);
  for (let p = 0; p < options.processes; p++) {
    const pair = await start();
    try {
      for (let warm = 0; warm < 2; warm++) {
        await measure(pair.on, { ...run, duration: 3 });
        await settle();
        await measure(pair.off, { ...run, duration: 3 });
      }
      const mine: number[] = [];
      for (let i = 0; i < perProcess; i++) {
        const onFirst = i % 2 === 0;
        const first = await measure(onFirst ? pair.on : pair.off, run);
        await settle();
        const second = await measure(onFirst ? pair.off : pair.on, run);
        await settle();
        const [withLogs, without] = onFirst ? [first, second] : [second, first];
        on.push({ rps: withLogs.requestsPerSecond, cpu: withLogs.machineCpuMicros });
        off.push({ rps: without.requestsPerSecond, cpu: without.machineCpuMicros });
        mine.push((1 - withLogs.requestsPerSecond / without.requestsPerSecond) * 100);
      }
      costs.push(...mine);
      processCostPercents.push(mean(mine));
      options.log?.(`process ${p + 1}: ${mine.length} pairs, logging costs ${mean(mine).toFixed(1)} % (on ${mean(on.slice(-mine.length).map((r) => r.rps)).toFixed(0)}, off ${mean(off.slice(-mine.length).map((r) => r.rps)).toFixed(0)} req/s)`);
    } finally {
      await pair.stop();
    }
  }
  const costPercent = mean(costs);
  const deviation = Math.sqrt(costs.reduce((sum, c) => sum + (c - costPercent) ** 2, 0) / (costs.length - 1));
  const cpu = (runs: { cpu: number | null }[]) => (runs.every((r) => r.cpu !== null) ? mean(runs.map((r) => r.cpu!)) : null);
  return {
    onRequestsPerSecond: mean(on.map((r) => r.rps)),
    offRequestsPerSecond: mean(off.map((r) => r.rps)),
    costPercent,
    // Normal approximation: there are dozens of pairs.
    confidencePercent: (1.96 * deviation) / Math.sqrt(costs.length),
    pairs: costs.length,
    processCostPercents,
    onCpuMicros: cpu(on),
    offCpuMicros: cpu(off),
  };
}
