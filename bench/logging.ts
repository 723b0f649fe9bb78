import { measure, type LoadTarget } from './load.js';

export interface LoggingCost {
  onRequestsPerSecond: number;
  offRequestsPerSecond: number;
  /** Throughput lost to request logging, in percent of the unlogged figure. */
  costPercent: number;
}

/**
 * Q1 against the API with request logging on and against a second API process with it off
 * (same database, the log-ingest worker running), alternating on/off/on/off so that drift of the
 * machine falls on both sides; each side's figure is the mean of its runs.
 */
export async function measureLoggingCost(
  on: LoadTarget,
  off: LoadTarget,
  options: { duration: number; connections: number; rounds?: number },
): Promise<LoggingCost> {
  const onRuns: number[] = [];
  const offRuns: number[] = [];
  for (let round = 0; round < (options.rounds ?? 2); round++) {
    onRuns.push((await measure(on, options)).requestsPerSecond);
    offRuns.push((await measure(off, options)).requestsPerSecond);
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const onRequestsPerSecond = mean(onRuns);
  const offRequestsPerSecond = mean(offRuns);
  return { onRequestsPerSecond, offRequestsPerSecond, costPercent: (1 - onRequestsPerSecond / offRequestsPerSecond) * 100 };
}
