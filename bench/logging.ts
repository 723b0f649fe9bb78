import { measure, type LoadTarget } from './load.js';

export interface LoggingCost {
  onRequestsPerSecond: number;
  offRequestsPerSecond: number;
  /** Throughput lost to request logging, in percent of the unlogged figure. */
  costPercent: number;
  /** The cost of each on/off pair, to show how much the machine drifted between runs. */
  pairCostPercents: number[];
}

const percentLost = (on: number, off: number) => (1 - on / off) * 100;

/**
 * Q1 against the API with request logging on and against a second API process with it off
 * (same database, the log-ingest worker running). Both are warmed up first, then measured in
 * alternating short runs (on/off/on/off...), so that drift of a shared machine falls on both
 * sides; each side's figure is the mean of its runs.
 */
export async function measureLoggingCost(
  on: LoadTarget,
  off: LoadTarget,
  options: { duration: number; connections: number; rounds?: number },
): Promise<LoggingCost> {
  const run = { connections: options.connections, duration: Math.max(3, Math.round(options.duration / 2)) };
  await measure(on, { ...run, duration: 3 });
  await measure(off, { ...run, duration: 3 });
  const onRuns: number[] = [];
  const offRuns: number[] = [];
  for (let round = 0; round < (options.rounds ?? 5); round++) {
    onRuns.push((await measure(on, run)).requestsPerSecond);
    offRuns.push((await measure(off, run)).requestsPerSecond);
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const onRequestsPerSecond = mean(onRuns);
  const offRequestsPerSecond = mean(offRuns);
  return {
    onRequestsPerSecond,
    offRequestsPerSecond,
    costPercent: percentLost(onRequestsPerSecond, offRequestsPerSecond),
    pairCostPercents: onRuns.map((value, i) => percentLost(value, offRuns[i])),
  };
}
