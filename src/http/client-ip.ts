import type { IncomingMessage } from 'node:http';

/** The client address, as the socket sees it (put a trusted proxy's header here if you add one). */
// The socket is gone (null) when a request is logged after its connection was destroyed.
export const clientIp = (req: IncomingMessage): string => req.socket?.remoteAddress ?? 'unknown';
