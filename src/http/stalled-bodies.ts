import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { requestTimeout } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import type { Logger } from '../shared/logger.js';
import { sendError } from './send-error.js';

/** A request whose body is still to arrive: how much its connection had read, and since when nothing more came. */
interface Watched {
  req: IncomingMessage;
  res: ServerResponse;
  bytesRead: number;
  quietSince: number;
}

const hasBody = (req: IncomingMessage) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * REQUEST_TIMEOUT_MS (docs/configuration.md): a request body that stops arriving for that long is
 * ended with `onStall`; one that keeps arriving is never cut off, however long it takes. node's
 * own `requestTimeout` bounds the whole request instead, and an import reads its body only as
 * fast as it writes rows: a 160,000-row file was cut off after 120 s, its client still sending.
 *
 * Time counts only while the server waits for the client: not while bytes already received wait
 * to be read (the reader is busy; node has paused the socket, or holds them in the request), and
 * not once the body is complete. Checked every `checkMs`; returns the function that stops it.
 */
export function watchStalledBodies(
  server: Server,
  timeoutMs: number,
  onStall: (req: IncomingMessage, res: ServerResponse) => void,
  checkMs = Math.min(1_000, Math.max(50, Math.floor(timeoutMs / 4))),
): () => void {
  const watched = new Set<Watched>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!hasBody(req)) return;
    const entry = { req, res, bytesRead: req.socket.bytesRead, quietSince: performance.now() };
    watched.add(entry);
    res.once('close', () => watched.delete(entry));
  });
  const check = () => {
    const now = performance.now();
    for (const entry of watched) {
      const { req, res } = entry;
      const socket = req.socket as IncomingMessage['socket'] | null;
      if (req.complete || res.writableEnded || !socket || socket.destroyed) {
        watched.delete(entry);
      } else if (socket.bytesRead !== entry.bytesRead || socket.isPaused() || req.readableLength > 0) {
        entry.bytesRead = socket.bytesRead;
        entry.quietSince = now;
      } else if (now - entry.quietSince >= timeoutMs) {
        watched.delete(entry);
        onStall(req, res);
      }
    }
  };
  const timer = setInterval(check, checkMs).unref();
  return () => clearInterval(timer);
}

/**
 * The answer to a stalled body: 408 REQUEST_TIMEOUT (the usual error body, docs/reliability.md "Errors"; the connection closed),
 * then the request is ended with that error, so that whatever waits for the rest of the body
 * fails with it (a 408, no fault of ours: no error-level line). The request log records 408,
 * the status the client got. A response already under way can only be cut short.
 */
export const answerStalledBody =
  (logger: Logger) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const error = requestTimeout();
    logger.info({ path: (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url, requestId: res.getHeader('x-request-id') }, 'request body stalled; answered 408');
    if (res.headersSent) {
      req.destroy(error);
      return;
    }
    res.setHeader('Connection', 'close');
    sendError(res, describeError(error));
    // Once the answer is on its way: ending the request closes the connection.
    res.once('finish', () => req.destroy(error));
  };
