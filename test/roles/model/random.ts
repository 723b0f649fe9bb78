/** A seeded PRNG (mulberry32) and the few draws the roles model test makes: one seed replays a whole run. */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Each item kept with probability `p`, in order. */
  subset<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.chance(p));
  }

  /** A non-empty subset. */
  some<T>(items: readonly T[], p = 0.5): T[] {
    const kept = this.subset(items, p);
    return kept.length > 0 ? kept : [this.pick(items)];
  }

  /** One of the weighted entries: `[weight, value]`. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    let roll = this.next() * entries.reduce((sum, [w]) => sum + w, 0);
    for (const [w, value] of entries) {
      roll -= w;
      if (roll < 0) return value;
    }
    return entries[entries.length - 1][1];
  }
}
