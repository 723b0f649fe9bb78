/** The p-th percentile (0-100, nearest rank) of `values`, sorted or not; undefined when there are none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
