import type { PgBoss } from 'pg-boss';
import { defineCommand, printJson } from '../command.js';
import { withBoss, withDatabase } from '../database.js';

export interface QueueDepth {
  name: string;
  /** Waiting jobs, deferred ones included. */
  queued: number;
  /** Waiting for a start time: retries in their backoff, delayed sends. */
  deferred: number;
  active: number;
  /** Failed jobs still retained (a rolling count, bounded by the queue's retention). */
  failed: number;
  /** When the counts were taken. */
  capturedOn: string;
}

/**
 * Every pg-boss queue with its depths. `force` asks pg-boss for a fresh count instead of its
 * hourly cache; it may still reuse a count taken within the last minute.
 */
export async function queueDepths(boss: PgBoss): Promise<QueueDepth[]> {
  const queues = await boss.getQueues();
  const depths: QueueDepth[] = [];
  for (const queue of queues.sort((a, b) => a.name.localeCompare(b.name))) {
    const [stats] = await boss.getQueueStats(queue.name, { force: true });
    depths.push({
      name: queue.name,
      queued: stats.queuedCount,
      deferred: stats.deferredCount,
      active: stats.activeCount,
      failed: stats.failedCount,
      capturedOn: new Date(stats.capturedOn).toISOString(),
    });
  }
  return depths;
}

export function formatDepths(depths: QueueDepth[]): string {
  const header = ['QUEUE', 'QUEUED', 'DEFERRED', 'ACTIVE', 'FAILED'];
  const rows = depths.map((d) => [d.name, String(d.queued), String(d.deferred), String(d.active), String(d.failed)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

export const queues = defineCommand({
  name: 'queues',
  summary: 'Show job queue depths (queued, deferred, active, failed per queue)',
  usage: `Usage: npm run cli -- queues [--json]

Shows every pg-boss queue with its waiting (queued, of which deferred: retries in backoff or
delayed jobs), running (active) and failed job counts. Counts are about a minute old at most.
--json prints [{ name, queued, deferred, active, failed, capturedOn }] instead of a table.`,
  options: { json: { type: 'boolean' } },
  async run(values, ctx) {
    const config = ctx.config();
    const depths = await withDatabase(config, (url) => withBoss(url, config, queueDepths));
    if (values.json) printJson(depths);
    else process.stdout.write(`${formatDepths(depths)}\n`);
  },
});
