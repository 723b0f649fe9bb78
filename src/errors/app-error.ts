import { TRPCError } from '@trpc/server';

/** The error codes of docs/reliability.md#errors; nothing else ever reaches a client. */
export type ErrorCode =
  | 'INVALID_JSON'
  | 'INVALID_QUERY'
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'INVALID_TRANSITION'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'VALIDATION_ERROR'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR'
  // Answered by the HTTP layer before a request is routed (see describeClientError).
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE';

export interface ErrorDetail {
  field: string;
  message: string;
}

const TRPC_CODE_BY_STATUS = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
} as const;

export type ErrorStatus = keyof typeof TRPC_CODE_BY_STATUS;

/**
 * An error the client is meant to see. It is a TRPCError so that `/trpc` answers the same
 * HTTP status as `/v1`; `describeError` turns it into the error body.
 */
export class AppError extends TRPCError {
  constructor(
    readonly status: ErrorStatus,
    readonly errorCode: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] | null = null,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super({ code: TRPC_CODE_BY_STATUS[status], message });
  }
}

export const unauthorized = (message = 'Missing or invalid credentials') =>
  new AppError(401, 'UNAUTHORIZED', message);
export const forbidden = (message = 'Not allowed') => new AppError(403, 'FORBIDDEN', message);
/** 403 naming what the caller's rules refuse, one detail each (an import's lines). */
export const forbiddenLines = (details: ErrorDetail[]) =>
  new AppError(403, 'FORBIDDEN', `Refused by the role's rules: ${details.map((d) => d.field).join(', ')}`, details);
export const notFound = (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`);
export const badRequest = (message: string) => new AppError(400, 'BAD_REQUEST', message);
export const invalidQuery = (message: string) => new AppError(400, 'INVALID_QUERY', message);
export const conflict = (message: string) => new AppError(409, 'CONFLICT', message);
export const invalidTransition = (message: string) => new AppError(409, 'INVALID_TRANSITION', message);
/** 412: the resource moved on from the version `If-Match` names; `ETag` is the current one (docs/contents.md#concurrent-edits). */
export const preconditionFailed = (message: string, etag: string) => new AppError(412, 'PRECONDITION_FAILED', message, null, { ETag: etag });
export const validationError = (details: ErrorDetail[]) =>
  new AppError(422, 'VALIDATION_ERROR', `Validation failed: ${details.map((d) => d.field).join(', ')}`, details);
export const fieldInvalid = (field: string, message: string) => validationError([{ field, message }]);
/** 422 whose message says the problem itself rather than listing the fields. */
export const unprocessable = (message: string, details: ErrorDetail[]) => new AppError(422, 'VALIDATION_ERROR', message, details);
export const invalidJson = (message: string) => new AppError(400, 'INVALID_JSON', message);
/** 404 for a path no route serves (`path` as the client wrote it, e.g. `/v1/...`). */
export const noRoute = (method: string, path: string) => new AppError(404, 'NOT_FOUND', `No route for ${method} ${path}`);
/** 405 naming the methods the path does serve, in the message and in `Allow`. */
export const methodNotAllowed = (method: string, allowed: string[]) =>
  new AppError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allowed.join(', ')}`, null, {
    Allow: allowed.join(', '),
  });
/** A request body that stopped arriving for REQUEST_TIMEOUT_MS (http/stalled-bodies.ts). */
export const requestTimeout = () => new AppError(408, 'REQUEST_TIMEOUT', 'The request body stopped arriving (REQUEST_TIMEOUT_MS)');
export const payloadTooLarge = (message: string) => new AppError(413, 'PAYLOAD_TOO_LARGE', message);
export const unsupportedMediaType = (message: string) => new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', message);
export const rateLimited = (retryAfterSeconds: number, message = `Rate limit exceeded; retry in ${retryAfterSeconds} s`) =>
  new AppError(429, 'RATE_LIMITED', message, null, { 'Retry-After': String(retryAfterSeconds) });
export const serviceUnavailable = (message: string) => new AppError(503, 'SERVICE_UNAVAILABLE', message);
