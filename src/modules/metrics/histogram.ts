/**
 * Request latency histogram of the rollups: upper bounds in milliseconds, roughly 25 % apart
 * from 1 ms to 60 s. A rollup stores `{ "<bucket index>": count }` where index i counts
 * durations in [BOUNDS[i-1], BOUNDS[i]) (index 0: below 1 ms; index BOUNDS.length: 60 s and more),
 * which is exactly PostgreSQL's `width_bucket(duration, BOUNDS)`.
 */
export const LATENCY_BOUNDS_MS = [
  1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12.5, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400,
  500, 600, 800, 1000, 1250, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10_000, 15_000, 20_000, 30_000, 60_000,
];

export type Histogram = Record<string, number>;

/** PostgreSQL's `width_bucket(duration, LATENCY_BOUNDS_MS)`: how many bounds are ≤ the duration. */
export function latencySlot(durationMs: number): number {
  let low = 0;
  let high = LATENCY_BOUNDS_MS.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (LATENCY_BOUNDS_MS[mid] <= durationMs) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Adds `from` into `into` (bucket by bucket). */
export function mergeHistogram(into: Histogram, from: Histogram): Histogram {
  for (const [bucket, count] of Object.entries(from)) into[bucket] = (into[bucket] ?? 0) + Number(count);
  return into;
}

/**
 * The `q`-quantile (0..1) of a histogram, interpolated linearly inside its bucket: exact to the
 * bucket's width (≤ 25 %). Null for an empty histogram.
 */
export function quantile(histogram: Histogram, q: number): number | null {
  const buckets = Object.entries(histogram)
    .map(([index, count]) => [Number(index), Number(count)] as const)
    .filter(([, count]) => count > 0)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (const [index, count] of buckets) {
    if (seen + count >= rank) {
      const low = index === 0 ? 0 : LATENCY_BOUNDS_MS[index - 1];
      const high = LATENCY_BOUNDS_MS[index] ?? low;
      const within = count === 0 ? 0 : (rank - seen) / count;
      return Math.round((low + (high - low) * within) * 100) / 100;
    }
    seen += count;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}
