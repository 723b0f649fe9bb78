import type pg from 'pg';
import { transaction, sqlOn } from '../../../db/sql.js';
import { AppError, rateLimited } from '../../../errors/app-error.js';
import { uuidv7 } from '../../../shared/ids.js';
import type { Logger } from '../../../shared/logger.js';
import { countCredentialStreams, deleteStream, insertStream, lockCredentialStreams, refreshStreams } from './stream-registry.sql.js';

/** A stream row of a process that stopped refreshing it no longer counts after this. */
const STREAM_TTL_SECONDS = 30;
const REFRESH_MS = 10_000;

/** An open stream: aborted when its credential no longer holds, or when the server stops. */
export interface StreamGrant {
  signal: AbortSignal;
  /** Counts events sent (Prometheus). */
  sent(count: number): void;
  close(): Promise<void>;
}

interface OpenStream {
  controller: AbortController;
  recheckKey: string;
  /** Told what each passed recheck of its key answered. */
  renewed?: (checked: unknown) => void;
}

/** The pause a client refused for too many open streams is asked for (Retry-After). */
const STREAM_LIMIT_RETRY_SECONDS = 5;

/** Aborts a stream whose credential was refused on a recheck; `reason.error` is that refusal. */
export class StreamRefused extends Error {
  constructor(readonly error: unknown) {
    super('the stream’s credential no longer holds');
  }
}

/** Aborts every stream when the server stops: clients reconnect and resume (docs/realtime.md#who-sees-what). */
export class StreamShutdown extends Error {
  constructor() {
    super('the server is stopping');
  }
}

/**
 * The realtime streams of this process (docs/realtime.md#who-sees-what): at most `maxPerCredential` per credential
 * across processes (a row per stream in `event_stream`, refreshed by its process), each
 * credential checked again every `recheckMs` (once per credential, origin and project, however
 * many streams share them, and what it answers handed to each of them), all of them closed on
 * shutdown.
 */
export class EventStreams {
  private readonly open = new Map<string, OpenStream>();
  private readonly checks = new Map<string, () => Promise<unknown>>();
  private timers: NodeJS.Timeout[] = [];
  private rechecking = false;
  /** Events written to streams since start (Prometheus). */
  eventsSent = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: { maxPerCredential: number; recheckMs: number },
    private readonly logger: Logger,
  ) {}

  start(): void {
    const every = (ms: number, run: () => Promise<void>) => {
      const timer = setInterval(() => void run().catch((error: unknown) => this.logger.warn({ err: error }, 'realtime stream upkeep failed')), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.recheckMs, () => this.recheck());
    every(REFRESH_MS, async () => {
      if (this.open.size > 0) await sqlOn(this.pool)(refreshStreams([...this.open.keys()], STREAM_TTL_SECONDS));
    });
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Opens a stream for `credentialId`, or 429 when it has `maxPerCredential` open on all
   * processes. `check` (identified by `recheckKey`) throws when the credential no longer holds;
   * when it passes, `renewed` gets its answer (the stream's access as it is now).
   */
  async claim(credentialId: string, recheckKey: string, check: () => Promise<unknown>, renewed?: (checked: unknown) => void): Promise<StreamGrant> {
    const id = uuidv7();
    await transaction(this.pool, async (sql) => {
      await sql(lockCredentialStreams(credentialId));
      const [{ open }] = await sql<{ open: number }>(countCredentialStreams(credentialId));
      if (open >= this.options.maxPerCredential) {
        // Every 429 carries Retry-After; a slot frees as soon as one of the credential's streams
        // closes, which no server can foretell, so the client is asked for a short pause.
        throw rateLimited(STREAM_LIMIT_RETRY_SECONDS, `At most ${this.options.maxPerCredential} open event streams per credential; close one first`);
      }
      await sql(insertStream(id, credentialId, STREAM_TTL_SECONDS));
    });
    const controller = new AbortController();
    this.open.set(id, { controller, recheckKey, renewed });
    this.checks.set(recheckKey, check);
    let closed = false;
    return {
      signal: controller.signal,
      sent: (count) => {
        this.eventsSent += count;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        this.open.delete(id);
        if (![...this.open.values()].some((s) => s.recheckKey === recheckKey)) this.checks.delete(recheckKey);
        await sqlOn(this.pool)(deleteStream(id)).catch((error: unknown) => this.logger.warn({ err: error }, 'could not release a stream; it expires'));
      },
    };
  }

  /** Ends every stream (server shutdown). */
  closeAll(): void {
    for (const stream of this.open.values()) stream.controller.abort(new StreamShutdown());
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.closeAll();
  }

  private async recheck(): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      await Promise.all(
        [...this.checks].map(async ([key, check]) => {
          let checked: unknown;
          try {
            checked = await check();
          } catch (error) {
            // A refusal closes the streams; a database that is briefly away does not.
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            for (const stream of this.open.values()) if (stream.recheckKey === key) stream.controller.abort(new StreamRefused(error));
            return;
          }
          for (const stream of this.open.values()) if (stream.recheckKey === key) stream.renewed?.(checked);
        }),
      );
    } finally {
      this.rechecking = false;
    }
  }
}
