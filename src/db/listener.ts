import pg from 'pg';
import type { Logger } from '../shared/logger.js';

/** How long a lost LISTEN connection waits before it connects again (doubling up to the last). */
const RECONNECT_MS = [100, 500, 1_000, 2_000, 5_000];

export interface Listener {
  close(): Promise<void>;
}

/**
 * A connection of its own that LISTENs on `channel` (a constant of the caller, not input) and
 * calls `onNotify` with each payload. A lost connection is replaced, and `onReconnect` is called
 * once it listens again: notifications sent in between are lost, so the caller catches up then.
 */
export async function listen(
  databaseUrl: string,
  channel: string,
  handlers: { onNotify: (payload: string | undefined) => void; onReconnect: () => void },
  logger: Logger,
): Promise<Listener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let client: pg.Client | null = null;
  let closed = false;
  let attempt = 0;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotify(message.payload);
    });
    next.on('error', (error) => {
      if (closed || client !== next) return;
      logger.warn({ err: error, channel }, 'LISTEN connection lost; connecting again');
      client = null;
      next.end().catch(() => {});
      retry();
    });
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    client = next;
    attempt = 0;
  };
  const retry = () => {
    const delay = RECONNECT_MS[Math.min(attempt++, RECONNECT_MS.length - 1)];
    setTimeout(() => {
      if (closed) return;
      connect().then(handlers.onReconnect, (error: unknown) => {
        logger.warn({ err: error, channel }, 'could not LISTEN; trying again');
        retry();
      });
    }, delay).unref();
  };

  await connect();
  return {
    close: async () => {
      closed = true;
      await client?.end().catch(() => {});
      client = null;
    },
  };
}
