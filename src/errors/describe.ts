import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { AppError, type ErrorCode, type ErrorDetail } from './app-error.js';

/** The one error body (docs/reliability.md#errors). */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: ErrorDetail[] | null };
}

export interface DescribedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True for faults of ours (5xx) that deserve a log line with the cause. */
  internal: boolean;
}

const make = (status: number, code: ErrorCode, message: string, details: ErrorDetail[] | null = null) => ({
  status,
  body: { error: { code, message, details } },
  headers: {},
  internal: status >= 500,
});

/** "name: Required; permission: Invalid option ..." naming every field that failed. */
export function formatZodIssues(error: ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** PostgreSQL and socket errors that mean "the database is not reachable right now". */
function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300'].includes(code)) {
    return true;
  }
  if (code.startsWith('08')) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

/**
 * node's error for a request whose client closed the connection before sending all of it: the
 * client left (or its connection broke), which is no fault of ours and answers no one. A
 * database connection reset has the same code but comes from a system call (`syscall`).
 */
function isClientGone(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; syscall?: unknown } | null;
  return e?.code === 'ECONNRESET' && e.message === 'aborted' && e.syscall === undefined;
}

function unwrapCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause; depth++) {
    if (current instanceof AppError) return current;
    current = current.cause;
  }
  return current;
}

/**
 * Maps anything thrown while serving a request to status + error body. Unknown errors become
 * a generic 500: no message, stack or SQL of ours ever reaches the client.
 * `procedureType` tells query-string failures (INVALID_QUERY) from body failures (BAD_REQUEST).
 */
export function describeError(error: unknown, procedureType?: 'query' | 'mutation' | string): DescribedError {
  if (error instanceof AppError) {
    return { ...make(error.status, error.errorCode, error.message, error.details), headers: error.headers };
  }
  // express's router could not decode a path parameter (`/v1/p/files/%E0%A4%A/content`); it
  // marks that 400, and it was answered 500.
  if (error instanceof URIError) return make(400, 'BAD_REQUEST', 'Malformed percent-encoding in the request path');
  const cause = unwrapCause(error);
  if (cause instanceof AppError) return describeError(cause, procedureType);
  // A ZodError is the client's fault only as an input failure (BAD_REQUEST); an output that
  // fails its schema is our bug, and stays a 500.
  const inputFailure = !(error instanceof TRPCError) || error.code === 'BAD_REQUEST';
  if (cause instanceof ZodError && inputFailure) {
    const code = procedureType === 'query' ? 'INVALID_QUERY' : 'BAD_REQUEST';
    return make(400, code, `Invalid request: ${formatZodIssues(cause)}`);
  }
  if (error instanceof TRPCError) {
    switch (error.code) {
      case 'PARSE_ERROR':
        return make(400, 'INVALID_JSON', 'Request body is not valid JSON');
      case 'BAD_REQUEST':
        return make(400, 'BAD_REQUEST', error.message);
      case 'NOT_FOUND':
        return make(404, 'NOT_FOUND', error.message === 'Not found' ? 'Not found' : error.message);
      case 'METHOD_NOT_SUPPORTED':
        return make(405, 'METHOD_NOT_ALLOWED', 'Method not allowed');
      case 'UNSUPPORTED_MEDIA_TYPE':
        return make(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
      case 'PAYLOAD_TOO_LARGE':
        return make(413, 'PAYLOAD_TOO_LARGE', 'Request body too large');
      case 'UNAUTHORIZED':
        return make(401, 'UNAUTHORIZED', 'Missing or invalid credentials');
      case 'FORBIDDEN':
        return make(403, 'FORBIDDEN', 'Not allowed');
      default:
        break;
    }
  }
  if (isClientGone(cause)) return make(400, 'BAD_REQUEST', 'The client closed the connection before the request was complete');
  if (isDatabaseUnavailable(cause)) {
    return make(503, 'SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly');
  }
  return make(500, 'INTERNAL_ERROR', 'Internal server error');
}

/**
 * What node's HTTP parser refused before express saw a request (the `clientError` event): 431
 * for a request line and headers over HEADER_MAX_BYTES, 408 when headers or the whole request
 * did not arrive in time, 400 for anything that is not HTTP. Same body as every other error.
 */
export function describeClientError(parserCode: string | undefined): DescribedError {
  switch (parserCode) {
    case 'HPE_HEADER_OVERFLOW':
      return make(431, 'HEADERS_TOO_LARGE', 'The request line and headers are too large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return make(413, 'PAYLOAD_TOO_LARGE', 'Chunk extensions too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return make(408, 'REQUEST_TIMEOUT', 'The request was not received in time');
    default:
      return make(400, 'BAD_REQUEST', 'Malformed HTTP request');
  }
}
