/**
 * `import { createTabulaClient } from '@tabula/client'` (inside this repository: 'tabula/client'):
 * the typed TypeScript client of the `/trpc` face. Every procedure of the server is a typed call
 * (`client.contents.list.query({...})`, `client.tables.create.mutate({...})`), and calls made in
 * the same tick travel in one HTTP request. The server's router is imported for its type only
 * (./server-types.ts): nothing of the server runs here.
 */
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, type TRPCClient, type TRPCLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import type { AppRouter, EventEnvelope, EventType, OperatorsByKind, StreamReset } from './server-types.js';
import { toTabulaError } from './error.js';

export { TabulaError, type TabulaErrorCode } from './error.js';
export { exportContents, importContents, type ContentsFormat, type ExportProgress, type ExportQuery, type ImportOptions } from './contents-io.js';
export { FileCallError, fileContent, replaceFile, uploadFile, type FileRecord, type FileTransport, type ImageParams, type UploadProgress } from './files.js';
export type { AppRouter, EventEnvelope, EventType, OperatorsByKind, StreamReset };
/** Inputs and outputs of every procedure, e.g. `RouterOutputs['contents']['get']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
/** What `events.subscribe` delivers: an event tracked by its id, or a reset (docs/realtime.md#resuming). */
export type EventStreamItem = { id: string; data: EventEnvelope } | StreamReset;

export interface TabulaClientOptions {
  /** Where Tabula listens, e.g. `http://127.0.0.1:3000` (without `/trpc`). */
  baseUrl: string;
  /** An account token (`tat_…`) or an API key (`tak_…`). */
  token: string;
  /** Extra headers on every request, e.g. `Origin` for a key with allowed hosts. */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /**
   * Reads see this client's own writes when the server reads from replicas (default true): the
   * client keeps the highest `Tabula-Consistency` token its writes were answered and sends it
   * on every read (docs/scaling-out.md#the-consistency-token).
   */
  readYourWrites?: boolean;
}

export type TabulaClient = TRPCClient<AppRouter>;

/**
 * Batched GET requests carry their inputs in the URL; past this length the batch is split, so
 * that no request trips a proxy's or the server's URL limit (commonly 8 KiB).
 */
const MAX_URL_LENGTH = 4000;

/** Turns every failure into a TabulaError before tRPC hands it to the caller. */
const tabulaErrors: TRPCLink<AppRouter> = () => ({ next, op }) =>
  observable((observer) =>
    next(op).subscribe({
      next: (value) => observer.next(value),
      error: (error) => observer.error(toTabulaError(error)),
      complete: () => observer.complete(),
    }),
  );

export function createTabulaClient(options: TabulaClientOptions): TabulaClient {
  const base = parseBaseUrl(options.baseUrl);
  if (typeof options.token !== 'string' || options.token === '') throw new TypeError('createTabulaClient: token is required (tat_… or tak_…)');
  const headers = { ...options.headers, authorization: `Bearer ${options.token}` };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const batchFetch = options.readYourWrites === false ? options.fetch : withConsistency(fetchImpl);
  return createTRPCClient<AppRouter>({
    links: [
      tabulaErrors,
      splitLink({
        condition: (op) => op.type === 'subscription',
        // `events.subscribe` (docs/realtime.md#typed-client) over SSE. A fetch-based EventSource sends the credential
        // as a header, in Node and in browsers alike (the browser's own cannot), and resumes
        // after the last event on reconnect.
        true: httpSubscriptionLink({
          url: `${base}/trpc`,
          EventSource,
          eventSourceOptions: () => ({
            fetch: async (input: string | URL | Request, init?: RequestInit) =>
              refusalAsEvents(await fetchImpl(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } })),
          }),
        }),
        false: httpBatchLink({ url: `${base}/trpc`, headers, fetch: batchFetch, maxURLLength: MAX_URL_LENGTH }),
      }),
    ],
  });
}

/** A WAL position (`16/B374D848`) as a number; null for anything else. */
function lsnOf(token: string | null): bigint | null {
  const m = token ? /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(token) : null;
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

/**
 * A fetch that remembers the highest consistency token of the answers and sends it with every
 * GET (the reads), so that a replica serves a read only once it has this client's writes.
 */
function withConsistency(fetchImpl: typeof globalThis.fetch): typeof globalThis.fetch {
  let highest: { token: string; lsn: bigint } | null = null;
  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const request = highest && method === 'GET' ? { ...init, headers: { ...(init?.headers as Record<string, string>), 'tabula-consistency': highest.token } } : init;
    const response = await fetchImpl(input, request);
    const token = response.headers.get('tabula-consistency');
    const lsn = lsnOf(token);
    if (lsn !== null && (!highest || lsn > highest.lsn)) highest = { token: token!, lsn };
    return response;
  };
}

/**
 * A subscription the server refuses before it starts (401, 403, 404, 429, 400) is answered with
 * that HTTP status and a stream holding the one error event (docs/realtime.md). An EventSource
 * drops the body of any answer but a 200, and with it the error's code: the answer is handed to
 * it as a 200 so that tRPC reads the error event and the caller gets its TabulaError.
 */
function refusalAsEvents(response: Response): Response {
  if (response.status === 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  return new Response(response.body, { status: 200, headers: response.headers });
}

function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`createTabulaClient: baseUrl must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`createTabulaClient: baseUrl must use http or https, got ${url.protocol}`);
  return url.toString().replace(/\/+$/, '');
}
