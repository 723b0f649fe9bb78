import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { describeClientError } from '../errors/describe.js';

/**
 * The server's `clientError` handler: node's default answers 431/408/400 with an empty body; this
 * one sends the error body (docs/reliability.md#errors) and an X-Request-Id, then closes the connection as node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Mirrors node's own guard: write only when no response of this connection has begun
  // (`_httpMessage` is the response in progress), else the peer would get a corrupt stream.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const { status, body } = describeClientError(error.code);
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n\r\n' +
        text,
    );
  }
  socket.destroy(error);
}
