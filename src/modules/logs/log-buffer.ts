import type { Logger } from '../../shared/logger.js';
import type { RequestLogEntry } from './log-entry.js';
import { buildSegments, type LogSegment } from './log-segment.js';

export type { RequestLogEntry };

export interface LogBufferOptions {
  /** How often the buffer is handed over, at the latest. */
  intervalMs: number;
  /** Entries per hand-over (one queued job each); reaching it hands over at once. */
  batchSize: number;
  /**
   * Entries kept while the queue cannot be reached (database down); past it the oldest segments
   * are dropped and counted, so a long outage costs log lines, not the API's memory.
   */
  maxBuffered: number;
}

/*
 * Every hand-over is a job queued, fetched, completed and a segment insert: ~4 ms of PostgreSQL
 * CPU whatever its size (mostly commits). Measured on the logging pipeline alone at 4,000
 * entries/s, per entry: 250 ms / 500 entries 16.6 µs of PostgreSQL and 7 µs of the worker;
 * 500 ms / 2,000 entries 6 and 2.5 µs. A request still shows in the log list within a second.
 */
const DEFAULTS: LogBufferOptions = { intervalMs: 500, batchSize: 2000, maxBuffered: 50_000 };

const entriesIn = (segments: readonly LogSegment[]) => segments.reduce((sum, s) => sum + s.entries, 0);

/**
 * Request logging without a database write per request (docs/logs-and-metrics.md#request-logs): entries collect in memory and
 * are handed to the queue every `intervalMs` or `batchSize` entries, built into segments a batch
 * at a time (writing each entry into its segment as it came was no cheaper in a micro-benchmark
 * and cost the API ~3 µs more per request in the logging pipeline bench, as work spread between
 * requests runs colder than one loop) and queued as jobs of at most `batchSize` entries.
 * Hand-overs run one at a time; segments a failed one could not queue are sent first by the
 * next, with the same ids (the worker skips a segment it has stored). `close()` hands over the rest.
 */
export class RequestLogBuffer {
  /** Entries not handed over yet, in batches; the last one is open. */
  private collecting: RequestLogEntry[][] = [[]];
  private collected = 0;
  /** Built by an earlier hand-over and not queued yet (the queue failed). */
  private unsent: LogSegment[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly options: LogBufferOptions;
  /** Entries dropped because the buffer was full. */
  dropped = 0;

  constructor(
    private readonly send: (segments: LogSegment[]) => Promise<void>,
    private readonly logger: Logger,
    options: Partial<LogBufferOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.schedule();
  }

  /**
   * The next timed hand-over, `intervalMs` after this one: a hand-over because the batch was full
   * restarts the wait, so a steady stream leaves in full batches, not in a full one followed by
   * a sliver when a fixed timer fires.
   */
  private schedule(): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    this.timer = setTimeout(() => void this.flush(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Entries not queued yet. */
  get size(): number {
    return this.collected + entriesIn(this.unsent);
  }

  push(entry: RequestLogEntry): void {
    if (this.size >= this.options.maxBuffered && !this.dropOldestUnsent()) {
      // Nothing older to give up (a hand-over is stuck with everything else): this one goes.
      this.dropped++;
      return;
    }
    const open = this.collecting[this.collecting.length - 1];
    open.push(entry);
    this.collected++;
    if (open.length === this.options.batchSize) {
      this.collecting.push([]);
      void this.flush();
    }
  }

  private dropOldestUnsent(): boolean {
    const oldest = this.unsent.shift();
    if (oldest) this.dropped += oldest.entries;
    return oldest !== undefined;
  }

  /** Hands over everything buffered so far; resolves when that hand-over has finished. */
  flush(): Promise<void> {
    this.schedule();
    this.flushing = this.flushing.then(() => this.handOver());
    return this.flushing;
  }

  /** Stops the timer and hands over what is left (graceful shutdown: nothing is lost). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.flush();
    if (this.size > 0) {
      this.logger.warn({ lost: this.size }, 'request log entries could not be queued before shutdown');
    }
  }

  private async handOver(): Promise<void> {
    // Only what is buffered now: entries arriving during the sends go to the next hand-over, or
    // the loop would chase them and hand over a trickle of tiny batches (one job per few entries).
    const batches = this.collecting;
    this.collecting = [[]];
    this.collected = 0;
    const segments = this.unsent;
    this.unsent = [];
    for (const batch of batches) {
      if (batch.length === 0) continue;
      try {
        segments.push(...(await buildSegments(batch)));
      } catch (error) {
        // Not expected (JSON and zstd of plain values); counted, so the chain of hand-overs goes on.
        this.dropped += batch.length;
        this.logger.error({ err: error, entries: batch.length }, 'could not build request log segments; entries dropped');
      }
    }
    while (segments.length > 0) {
      let count = 0;
      let entries = 0;
      while (count < segments.length && (count === 0 || entries + segments[count].entries <= this.options.batchSize)) {
        entries += segments[count++].entries;
      }
      try {
        await this.send(segments.slice(0, count));
      } catch (error) {
        // Kept, in order, for the next hand-over; entries that came since are not lost either.
        this.unsent = segments;
        this.logger.warn({ err: error, buffered: this.size }, 'could not queue request log entries; will retry');
        return;
      }
      segments.splice(0, count);
    }
  }
}
