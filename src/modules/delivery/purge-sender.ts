import type pg from 'pg';
import { request } from 'undici';
import { transaction } from '../../db/sql.js';
import { listenForPurges, PURGE_CHANNEL, takePurges } from './delivery.sql.js';
import { purgeRequests, type PurgeKind } from './purge-requests.js';

/*
 * Sending the queued purges (docs/scaling-out.md#http-caches-and-purging). A purge is queued by
 * the triggers in the writing transaction, so it is visible here only once that transaction has
 * committed: no purge can reach the CDN before the change it reflects.
 */

/** Queued purges (one per writing statement) taken per step, their keys merged. */
export const PURGE_BATCH = 500;
/** An attempt's deadline (undici's own timeouts fire late). */
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface PurgeTarget {
  kind: PurgeKind;
  /** Unset: purges are taken and dropped (no CDN to tell), so the queue never grows. */
  url?: string;
  token?: string;
}

export class PurgeFailed extends Error {}

/** Sends one purge request; anything but 2xx fails it. */
async function send(req: ReturnType<typeof purgeRequests>[number]): Promise<void> {
  const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) });
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300) throw new PurgeFailed(`${req.method} ${req.url} answered ${res.statusCode}: ${text.slice(0, 200)}`);
}

/**
 * Takes a batch of queued purges and sends their keys, in one transaction: the batch leaves the
 * queue only if every request succeeded, else it stays for the next attempt (and other workers
 * skip it meanwhile). Answers how many queued purges it took.
 */
export async function purgeBatch(pool: pg.Pool, target: PurgeTarget): Promise<{ taken: number; keys: number }> {
  return transaction(pool, async (sql) => {
    const rows = await sql<{ keys: string[] }>(takePurges(PURGE_BATCH));
    const keys = new Set(rows.flatMap((row) => row.keys));
    if (target.url && keys.size > 0) {
      for (const req of purgeRequests(target.kind, target.url, keys, target.token)) await send(req);
    }
    return { taken: rows.length, keys: keys.size };
  });
}

/**
 * Calls `onQueued` whenever a purge is queued (a notification at the writer's commit), on a
 * connection of its own; `close` releases it. A lost connection is reported through `onError`
 * (the caller's polling covers the gap).
 */
export async function onPurgesQueued(pool: pg.Pool, onQueued: () => void, onError: (error: Error) => void): Promise<{ close(): void }> {
  const client = await pool.connect();
  client.on('notification', (message) => {
    if (message.channel === PURGE_CHANNEL) onQueued();
  });
  client.on('error', onError);
  const listen = listenForPurges();
  await client.query(listen.text);
  return { close: () => client.release(true) };
}
