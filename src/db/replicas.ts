import pg from 'pg';
import type { Logger } from '../shared/logger.js';
import { createPool } from './pool.js';
import { parseLsn } from './wal-position.js';

/*
 * Read routing over PostgreSQL streaming replicas (docs/scaling-out.md#read-replicas). A health
 * checker polls every node in the background; a read then picks its node from the last poll,
 * with no I/O of its own:
 * - with a consistency token, a replica that has replayed past it (and is within the lag bound),
 *   else the primary: a client reads its own writes;
 * - without one, the least-lagging replica within `maxLagMs`, else the primary.
 * A replica query that fails because the node is gone (or because a replica cannot answer it
 * yet) runs once more on the primary, and a gone node is skipped until a poll reaches it again.
 */

/** One place reads can go: its pool, and what the process keeps per node (`local`: a cache). */
export interface ReadNode<L> {
  /** `primary`, or `replica-<n>` in the order of DATABASE_REPLICA_URLS (the debug header). */
  name: string;
  pool: pg.Pool;
  local: L;
  /** Reads routed here so far (operator metrics). */
  reads: number;
}

/** A replica as operators see it (operator metrics). */
export interface ReplicaStatus {
  name: string;
  reachable: boolean;
  lagMs: number;
  /** Queries of reads routed here that the primary answered instead. */
  fallbacks: number;
}

interface Replica<L> extends ReadNode<L>, ReplicaState {
  health: pg.Pool;
  reachable: boolean;
  /** Whether the node was down or unknown before: the transition is logged once. */
  announced: 'up' | 'down' | null;
  fallbacks: number;
}

export interface ReplicaOptions {
  maxLagMs: number;
  pollMs: number;
  poolSize: number;
}

/** Primary positions kept (at least this long) to turn a replica's replay position into a lag in time. */
const SAMPLE_WINDOW_MS = 10_000;
/** A poll must answer within this time, or the node counts as unreachable for the round. */
const POLL_TIMEOUT_MS = 1_000;

/** Why a replica query is handed to the primary: the node is gone, or it cannot answer yet. */
export function replicaFailure(error: unknown): 'down' | 'retry' | null {
  const e = error as { code?: string; message?: string } | null;
  const code = e?.code ?? '';
  if (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code)) return 'down';
  // 08: connection exceptions; 57P01-03: shut down, crashed, not accepting connections yet.
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return 'down';
  if (!code && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e?.message ?? '')) return 'down';
  // A query cancelled by a recovery conflict (40001) or one naming a relation or column the
  // replica has not replayed yet (42P01, 42703): the primary can answer it.
  if (code === '40001' || code === '40P01' || code === '42P01' || code === '42703') return 'retry';
  return null;
}

/** What the routing knows of a replica from the last poll. */
export interface ReplicaState {
  /** Replay position (never above the real one: it only grows). */
  replayed: bigint;
  lagMs: number;
}

/**
 * The replica a read goes to, or null for the primary. `eligible`: the replicas reachable and
 * within the lag bound, least lag first. `wanted`: the client's token (undefined: none; null: not
 * a WAL position, which no replica is known to have). Without a token the least-lagging replica,
 * equally caught-up ones taking turns (`turn`); with one, the least-lagging that has replayed it.
 */
export function pickReplica<R extends ReplicaState>(eligible: readonly R[], wanted: bigint | null | undefined, turn: number): R | null {
  if (eligible.length === 0 || wanted === null) return null;
  if (wanted !== undefined) return eligible.find((r) => r.replayed >= wanted) ?? null;
  let ties = 1;
  while (ties < eligible.length && eligible[ties].lagMs === eligible[0].lagMs) ties++;
  return eligible[turn % ties];
}

/**
 * How far behind a replay position is, in time, given the primary's positions with the time each
 * was first seen (oldest first): since the oldest of them it has not reached. Caught up with the
 * newest: 0. Nothing known of the primary: Infinity.
 */
export function lagBehind(samples: readonly { at: number; lsn: bigint }[], replayed: bigint, now: number): number {
  if (samples.length === 0) return Infinity;
  const behind = samples.find((s) => s.lsn > replayed);
  return behind ? now - behind.at : 0;
}

export class ReplicaSet<L> {
  readonly primary: ReadNode<L>;
  private readonly replicas: Replica<L>[];
  /** Usable replicas, least lag first, as of the last poll. */
  private eligible: Replica<L>[] = [];
  private samples: { at: number; lsn: bigint }[] = [];
  private checkedAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | null = null;
  private turn = 0;

  /** The health checks' own connection to the primary: never queued behind requests. */
  private readonly primaryHealth: pg.Pool | null;

  constructor(
    primaryUrl: string,
    primaryPool: pg.Pool,
    urls: string[],
    private readonly options: ReplicaOptions,
    private readonly makeLocal: () => L,
    private readonly logger: Logger,
  ) {
    this.primary = { name: 'primary', pool: primaryPool, local: makeLocal(), reads: 0 };
    this.primaryHealth = urls.length > 0 ? createPool(primaryUrl, 1, logger, { connectionTimeoutMillis: POLL_TIMEOUT_MS, query_timeout: POLL_TIMEOUT_MS }) : null;
    this.replicas = urls.map((url, i) => {
      const pool = createPool(url, options.poolSize, logger, { connectionTimeoutMillis: POLL_TIMEOUT_MS * 2 });
      const replica: Replica<L> = {
        name: `replica-${i + 1}`, pool, local: makeLocal(), reads: 0, reachable: false, replayed: 0n, lagMs: Infinity, announced: null, fallbacks: 0,
        health: createPool(url, 1, logger, { connectionTimeoutMillis: POLL_TIMEOUT_MS, query_timeout: POLL_TIMEOUT_MS }),
      };
      this.failOver(replica);
      return replica;
    });
  }

  get size(): number {
    return this.replicas.length;
  }

  /** Polls now and then every `pollMs`; resolves after the first poll. */
  async start(): Promise<void> {
    if (this.replicas.length === 0) return;
    await this.poll();
    this.timer = setInterval(() => {
      this.polling ??= this.poll().finally(() => (this.polling = null));
    }, this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    await Promise.all([...this.replicas.flatMap((r) => [r.pool.end(), r.health.end()]), this.primaryHealth?.end()]);
  }

  /**
   * Where a read goes. `token`: the consistency token the client sent (undefined: none; a token
   * that is not a WAL position counts as one no replica has reached).
   */
  route(token: string | undefined): ReadNode<L> {
    // Health news older than a few rounds (a stalled poll) are not trusted.
    const stale = this.eligible.length === 0 || performance.now() - this.checkedAt > this.options.pollMs * 5 + POLL_TIMEOUT_MS;
    const node = (stale ? null : pickReplica(this.eligible, token === undefined ? undefined : parseLsn(token), this.turn++)) ?? this.primary;
    node.reads++;
    return node;
  }

  /** The nodes as operators see them: reads routed to each, and each replica's health. */
  status(): { nodes: ReadNode<L>[]; replicas: ReplicaStatus[] } {
    return {
      nodes: [this.primary, ...this.replicas],
      replicas: this.replicas.map((r) => ({ name: r.name, reachable: r.reachable, lagMs: r.lagMs, fallbacks: r.fallbacks })),
    };
  }

  /** One round: the primary's flushed position, then every replica's replay position. */
  private async poll(): Promise<void> {
    try {
      const [row] = (await this.primaryHealth!.query<{ lsn: string }>('select pg_current_wal_flush_lsn()::text as lsn')).rows;
      const lsn = parseLsn(row.lsn)!;
      const at = performance.now();
      const last = this.samples.at(-1);
      // The time a position was first seen: a replica short of it lags by at least its age.
      if (!last || lsn > last.lsn) this.samples.push({ at, lsn });
      // Kept past the lag bound: a replica behind every kept position lags at least the oldest one's age.
      const window = Math.max(SAMPLE_WINDOW_MS, 2 * this.options.maxLagMs);
      while (this.samples.length > 1 && at - this.samples[0].at > window) this.samples.shift();
    } catch (error) {
      this.logger.warn({ err: error }, 'replica health check: the primary did not answer');
    }
    await Promise.all(this.replicas.map((r) => this.check(r)));
    this.eligible = this.replicas
      .filter((r) => r.reachable && r.lagMs <= this.options.maxLagMs)
      .sort((a, b) => a.lagMs - b.lagMs);
    this.checkedAt = performance.now();
  }

  private async check(replica: Replica<L>): Promise<void> {
    try {
      const [row] = (await replica.health.query<{ replay: string | null; standby: boolean }>(
        'select pg_last_wal_replay_lsn()::text as replay, pg_is_in_recovery() as standby',
      )).rows;
      if (!row.standby) throw new Error('not a standby (promoted, or not a replica at all): not used for reads');
      const replayed = parseLsn(row.replay) ?? 0n;
      if (!replica.reachable) replica.local = this.makeLocal(); // a node back from the dead starts with nothing cached
      replica.replayed = replayed;
      replica.lagMs = lagBehind(this.samples, replayed, performance.now());
      replica.reachable = true;
      if (replica.announced !== 'up') this.logger.info({ replica: replica.name }, 'replica reachable: used for reads');
      replica.announced = 'up';
    } catch (error) {
      this.markDown(replica, error);
    }
  }

  private markDown(replica: Replica<L>, error: unknown): void {
    const was = replica.reachable;
    replica.reachable = false;
    replica.lagMs = Infinity;
    this.eligible = this.eligible.filter((r) => r !== replica);
    // What it cached may be newer or older than what it serves when it comes back.
    if (was) replica.local = this.makeLocal();
    if (replica.announced !== 'down') this.logger.warn({ replica: replica.name, err: error }, 'replica unreachable: reads go elsewhere');
    replica.announced = 'down';
  }

  /**
   * The replica's pool hands a query that failed for replicaFailure's reasons to the primary,
   * once; a query with a callback (nothing of ours) is left alone. A connection the replica
   * refuses is taken from the primary instead. Queries on a client already checked out (a
   * transaction, a COPY) are not moved: they fail with their node.
   */
  private failOver(replica: Replica<L>): void {
    const { pool } = replica;
    const primary = this.primary.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient>;
    const handle = (error: unknown) => {
      const failure = replicaFailure(error);
      if (!failure) throw error;
      replica.fallbacks++;
      if (failure === 'down') this.markDown(replica, error);
      // The primary's answer may be newer than what this node's cache has read: it must not be stored there.
      else replica.local = this.makeLocal();
    };
    pool.query = ((...args: unknown[]) => {
      if (typeof args.at(-1) === 'function') return query(...args);
      return query(...args).catch((error: unknown) => {
        handle(error);
        return (primary.query as (...a: unknown[]) => Promise<unknown>)(...args);
      });
    }) as typeof pool.query;
    pool.connect = ((...args: unknown[]) => {
      if (args.length > 0) return connect(...args);
      return connect().catch((error: unknown) => {
        handle(error);
        return primary.connect();
      });
    }) as typeof pool.connect;
  }
}
