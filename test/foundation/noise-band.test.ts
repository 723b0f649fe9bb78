import { describe, expect, it } from 'vitest';
import { noiseBand, type Read } from '../../bench/noise-band.js';

/**
 * The benchmark's noise band (bench/noise-band.ts): the p99 that reads have anyway over stretches
 * as long as the events measured, with nothing running.
 */

/** Reads every 2.5 ms (400 a second) over [from, to), each taking `ms(due)`. */
const readsOver = (from: number, to: number, ms: (due: number) => number): Read[] => {
  const reads: Read[] = [];
  for (let due = from; due < to; due += 2.5) reads.push([due, ms(due)]);
  return reads;
};

describe('noiseBand', () => {
  it('draws whole stretches: one 50 ms stall in 2 s of 5 ms reads sets the top of the band, not its bottom', () => {
    const stall = (due: number) => (due >= 1000 && due < 1050 ? 100 : 5);
    const reads = readsOver(0, 2000, stall);
    const band = noiseBand([{ from: 0, to: 2000 }], reads, [300])!;
    // A 300 ms stretch holds 120 reads: its p99 is 100 ms when it holds at least two stalled reads, else 5 ms.
    expect(band.low).toBe(5);
    expect(band.high).toBe(100);
    expect(band.median).toBe(5);
  });

  it('pools the stretches of every event into one p99, so several events make a stall count less', () => {
    // Two stalled reads in 2 s: one 300 ms stretch (120 reads) that holds them has a p99 of 100 ms;
    // thirty stretches pooled (3,600 reads) need 37 stalled reads for that, 19 stretches holding the stall.
    const reads = readsOver(0, 2000, (due) => (due >= 1000 && due < 1005 ? 100 : 5));
    expect(noiseBand([{ from: 0, to: 2000 }], reads, [300])!.high).toBe(100);
    expect(noiseBand([{ from: 0, to: 2000 }], reads, Array(30).fill(300))!.high).toBe(5);
  });

  it('cuts stretches only from the quiet windows given, and answers the same band for the same reads', () => {
    const quiet = [{ from: 0, to: 1000 }, { from: 5000, to: 6000 }];
    // Reads between the windows (during events) are slow; none of them may be drawn.
    const reads = [...readsOver(0, 1000, () => 4), ...readsOver(1000, 5000, () => 500), ...readsOver(5000, 6000, () => 6)];
    const band = noiseBand(quiet, reads, [200, 300, 250])!;
    expect(band.high).toBeLessThanOrEqual(6);
    expect(band.low).toBeGreaterThanOrEqual(4);
    expect(noiseBand(quiet, [...reads].reverse(), [200, 300, 250])).toEqual(band);
  });

  it('has no band when no quiet window is as long as the longest event', () => {
    expect(noiseBand([{ from: 0, to: 100 }], readsOver(0, 100, () => 5), [150])).toBeUndefined();
    expect(noiseBand([{ from: 0, to: 100 }], readsOver(0, 100, () => 5), [])).toBeUndefined();
  });
});
