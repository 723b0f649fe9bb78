import type { Server, ServerResponse } from 'node:http';

/** How often a draining server closes connections that have become idle. */
const IDLE_SWEEP_MS = 100;

/**
 * Graceful stop for `server`: returns `drain(ms)`, which stops accepting connections at once,
 * lets requests in flight finish (for at most `ms`), and closes every connection as soon as it
 * has nothing in flight. node's own `server.close()` closes idle connections only at the moment
 * it is called: a keep-alive connection whose request was in flight got `Connection: keep-alive`
 * and stayed open, serving further requests, for keepAliveTimeout after its response, which
 * delayed every shutdown under load by that much.
 */
export function drainable(server: Server): (ms: number) => Promise<void> {
  const unfinished = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    unfinished.add(res);
    res.once('close', () => unfinished.delete(res));
  });
  return async (ms) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Their response will say so, and node ends the connection after it.
    for (const res of unfinished) if (!res.headersSent) res.setHeader('Connection', 'close');
    server.closeIdleConnections();
    // Responses already under way (a download, say) leave their connection idle when they end.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), ms);
    await closed;
    clearInterval(sweep);
    clearTimeout(deadline);
  };
}
