import type pg from 'pg';
import type { Config } from '../../src/config/config.js';
import { onPurgesQueued, purgeBatch, PURGE_BATCH } from '../../src/modules/delivery/purge-sender.js';
import type { Logger } from '../../src/shared/logger.js';

/** Polling between notifications: a notification lost with a connection waits at most this. */
const POLL_MS = 500;
/** Waits after failed attempts, doubling from the first to the last (then the last again). */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;

/**
 * Purges CDN caches by surrogate key after each commit (docs/scaling-out.md#http-caches-and-purging):
 * woken by the writers' notifications, it sends the queued keys in batches, at once; a failed
 * batch stays queued and is tried again after 1 s, 2 s, 4 s... up to a minute, as long as it
 * fails. Without CDN_PURGE_URL it empties the queue.
 */
export function startCdnPurge(pool: pg.Pool, config: Config, logger: Logger): { stop(): Promise<void> } {
  const target = { kind: config.CDN_PURGE_KIND, url: config.CDN_PURGE_URL, token: config.CDN_PURGE_TOKEN };
  let stopping = false;
  let pending = true;
  let wake: (() => void) | undefined;
  const nudge = () => {
    pending = true;
    wake?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  let stopped: () => void = () => {};
  const stop = new Promise<void>((resolve) => (stopped = resolve));
  // Notifications do not cut a retry's wait short (a busy project would retry at once); stopping does.
  const sleep = (ms: number) => Promise.race([new Promise((resolve) => setTimeout(resolve, ms).unref()), stop]);

  const loop = (async () => {
    let listener: { close(): void } | null = null;
    let retryMs = 0;
    while (!stopping) {
      try {
        listener ??= await onPurgesQueued(pool, nudge, (error) => {
          logger.warn({ err: error }, 'purge notifications lost; listening again');
          listener?.close();
          listener = null;
        });
        pending = false;
        const { taken, keys } = await purgeBatch(pool, target);
        if (taken > 0 && target.url) logger.debug({ taken, keys }, 'purged');
        retryMs = 0;
        if (taken === PURGE_BATCH) continue;
      } catch (error) {
        retryMs = retryMs === 0 ? RETRY_FIRST_MS : Math.min(retryMs * 2, RETRY_MAX_MS);
        logger.error({ err: error, retryInMs: retryMs }, 'purge failed; the keys stay queued');
        await sleep(retryMs);
        continue;
      }
      if (!pending && !stopping) await pause(POLL_MS);
    }
    listener?.close();
  })();
  return {
    stop: async () => {
      stopping = true;
      stopped();
      wake?.();
      await loop;
    },
  };
}
