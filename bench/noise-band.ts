/**
 * What "within noise" means for a p99 of reads taken during short events (bench/releases.ts):
 * the p99 the same reads have anyway, over stretches of the same lengths with no event running.
 *
 * A block bootstrap: for each event, a stretch as long as it is cut at a random place from the
 * reads taken with nothing running (`quiet` windows); the reads of all those stretches give one
 * p99, and `draws` of them give the band. Stretches, not single reads, because a stall delays
 * every read due during it: reads drawn one by one would make the band far narrower than what
 * the machine does between events.
 */
import { percentile } from './percentile.js';

export interface Window {
  from: number;
  to: number;
}

/** A read: when it was due (same clock as the windows) and its latency in ms. */
export type Read = readonly [due: number, ms: number];

export interface NoiseBand {
  /** The median p99 of the drawn stretches, and the 2.5th and 97.5th percentiles of those p99s. */
  median: number;
  low: number;
  high: number;
}

/** A small seeded generator (mulberry32): the same run gives the same band. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The reads due within [from, to) of reads sorted by when they were due. */
function readsBetween(reads: readonly Read[], from: number, to: number): number[] {
  let lo = 0;
  let hi = reads.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (reads[mid][0] < from) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let i = lo; i < reads.length && reads[i][0] < to; i++) out.push(reads[i][1]);
  return out;
}

/**
 * The band of the p99 of reads over stretches as long as `lengths` (ms), cut from the `quiet`
 * windows (each at least as long as the longest stretch); undefined when there is none to cut from.
 */
export function noiseBand(quiet: readonly Window[], reads: readonly Read[], lengths: readonly number[], draws = 1000, seed = 1): NoiseBand | undefined {
  if (lengths.length === 0) return undefined;
  const longest = Math.max(...lengths);
  const usable = quiet.filter((w) => w.to - w.from >= longest);
  if (usable.length === 0) return undefined;
  const sorted = [...reads].sort((a, b) => a[0] - b[0]);
  const next = random(seed);
  const p99s: number[] = [];
  for (let draw = 0; draw < draws; draw++) {
    const pooled: number[] = [];
    for (const length of lengths) {
      const window = usable[Math.floor(next() * usable.length)];
      const from = window.from + next() * (window.to - window.from - length);
      pooled.push(...readsBetween(sorted, from, from + length));
    }
    const p99 = percentile(pooled, 99);
    if (p99 !== undefined) p99s.push(p99);
  }
  return { median: percentile(p99s, 50)!, low: percentile(p99s, 2.5)!, high: percentile(p99s, 97.5)! };
}
