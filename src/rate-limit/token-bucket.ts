import type pg from 'pg';
import { sqlOn } from '../db/sql.js';
import { takeTokens } from './rate-limit.sql.js';

export interface BucketSettings {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket capacity. */
  burst: number;
}

export interface Decision {
  allowed: boolean;
  /** Tokens left for this credential, as far as this process knows. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: whole seconds (≥ 1) until a request would pass. */
  retryAfterSeconds: number;
}

interface Lease {
  /** Tokens this process took from the shared bucket and has not spent yet. */
  tokens: number;
  /** What the shared bucket held after the last grant. */
  shared: number;
  /** A lease is used only briefly: unspent tokens must not outlive the refill they came from. */
  until: number;
  pending?: Promise<number>;
}

const LEASE_MS = 1000;

/**
 * One token bucket per credential, shared by every API process through PostgreSQL (docs/concepts.md#rate-limits).
 * Each process takes tokens from the shared row in small leases (one atomic UPDATE per lease),
 * then spends them locally: the shared bucket never hands out more than rate × time + burst in
 * total, so the limit holds across processes, while a request costs a database round trip
 * only once per lease instead of every time.
 */
export class SharedTokenBuckets {
  private readonly leases = new Map<string, Lease>();
  private readonly leaseSize: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: BucketSettings,
  ) {
    // A tenth of a second's worth: small enough that two processes share a burst fairly.
    this.leaseSize = Math.max(1, Math.min(1000, Math.floor(settings.ratePerSecond / 10)));
  }

  async take(key: string): Promise<Decision> {
    const now = Date.now();
    let lease = this.leases.get(key);
    if (!lease || lease.until <= now) {
      lease = { tokens: 0, shared: this.settings.burst, until: now + LEASE_MS };
      if (this.leases.size > 50_000) this.leases.clear();
      this.leases.set(key, lease);
    }
    while (lease.tokens < 1) {
      // Concurrent requests of one credential share a single refill.
      const current = lease;
      current.pending ??= this.refill(key, current).finally(() => (current.pending = undefined));
      const granted = await current.pending;
      if (granted === 0 && lease.tokens < 1) return this.refused(lease);
    }
    lease.tokens -= 1;
    return this.allowed(lease);
  }

  /** Takes up to one lease of tokens from the shared bucket; returns how many it got. */
  private async refill(key: string, lease: Lease): Promise<number> {
    const { burst, ratePerSecond } = this.settings;
    const rows = await sqlOn(this.pool)<{ granted: number; tokens: number }>(takeTokens(key, burst, ratePerSecond, this.leaseSize));
    lease.tokens += rows[0].granted;
    lease.shared = rows[0].tokens;
    lease.until = Date.now() + LEASE_MS;
    return rows[0].granted;
  }

  private allowed(lease: Lease): Decision {
    const remaining = Math.floor(lease.tokens + lease.shared);
    return {
      allowed: true,
      remaining,
      resetSeconds: Math.ceil((this.settings.burst - remaining) / this.settings.ratePerSecond),
      retryAfterSeconds: 0,
    };
  }

  private refused(lease: Lease): Decision {
    const missing = 1 - lease.shared;
    return {
      allowed: false,
      remaining: 0,
      resetSeconds: Math.ceil(this.settings.burst / this.settings.ratePerSecond),
      retryAfterSeconds: Math.max(1, Math.ceil(missing / this.settings.ratePerSecond)),
    };
  }
}
