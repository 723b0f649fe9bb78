import net from 'node:net';
import { until } from '../helpers/until.js';

/** Raw HTTP/1.1 over a socket, for what fetch cannot do: trickle bytes, hold a request open. */

export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server closes the connection, with the milliseconds since connecting. */
  closed: Promise<number>;
  write(data: string | Buffer): Promise<void>;
}

export async function connect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const started = Date.now();
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('utf8')));
  // A reset is a close too; the tests look at what arrived before it.
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => text,
    closed,
    write: (data) => new Promise<void>((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve()))),
  };
}

/** Whether a new TCP connection to `url` is refused (the server stopped listening). */
export function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Status and JSON body of the first response in `raw` (an HTTP/1.1 response with Content-Length). */
export function parseResponse(raw: string): { status: number; headers: Record<string, string>; json: unknown } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const body = rest.join('\r\n\r\n');
  let json: unknown = null;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, json };
}

/**
 * The pace of a slow client: resolves at the next multiple of `intervalMs` since `from` (its next
 * byte is due then), or at once when `done()` holds (the server closed the socket, the test ended).
 */
export function nextBeat(from: number, intervalMs: number, done: () => boolean): Promise<unknown> {
  const due = from + (Math.floor((Date.now() - from) / intervalMs) + 1) * intervalMs;
  return until(() => done() || Date.now() >= due, intervalMs + 1_000, 'the next beat of a slow client', 10);
}
