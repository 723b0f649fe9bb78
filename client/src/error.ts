import { TRPCClientError } from '@trpc/client';
import type { AppRouter, ErrorCode, ErrorDetail } from './server-types.js';

/**
 * `NETWORK_ERROR` is the client's own code: no Tabula error body reached it (connection refused,
 * DNS failure, or a response that is not Tabula's, such as a proxy's 502 page).
 */
export type TabulaErrorCode = ErrorCode | 'NETWORK_ERROR';

/** The error body (docs/reliability.md#errors) the server puts under `data.error` on the `/trpc` face (see src/trpc/trpc.ts). */
interface WireData {
  httpStatus?: number;
  error?: { code: ErrorCode; message: string; details: ErrorDetail[] | null };
}

/**
 * Every failed call of a Tabula client rejects with this. It extends tRPC's own error class so
 * that tRPC tooling (React Query adapters, `isTRPCClientError`) still recognises it.
 */
export class TabulaError extends TRPCClientError<AppRouter> {
  /** The error code, e.g. `NOT_FOUND`, `VALIDATION_ERROR` (docs/reliability.md#errors). */
  readonly code: TabulaErrorCode;
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  /** One entry per offending field for 422 `VALIDATION_ERROR`; null otherwise. */
  readonly details: ErrorDetail[] | null;
  /** The `X-Request-Id` of the HTTP request that failed, for support and log searches. */
  readonly requestId: string | null;

  constructor(source: TRPCClientError<AppRouter>) {
    super(source.message, { cause: source, meta: source.meta, result: source.shape ? { error: source.shape } : undefined });
    // TRPCClientError's constructor pins the prototype to its own; restore ours so that
    // `instanceof TabulaError` holds.
    Object.setPrototypeOf(this, new.target.prototype);
    this.name = 'TabulaError';
    const wire = source.data as WireData | undefined;
    const response = source.meta?.response as Response | undefined;
    this.status = wire?.httpStatus ?? response?.status ?? 0;
    this.code = wire?.error?.code ?? 'NETWORK_ERROR';
    this.details = wire?.error?.details ?? null;
    this.requestId = response?.headers?.get('x-request-id') ?? null;
  }
}

/** Wraps whatever a link rejected with; an error that already is a TabulaError stays as it is. */
export function toTabulaError(error: unknown): TabulaError {
  if (error instanceof TabulaError) return error;
  return new TabulaError(TRPCClientError.from<AppRouter>(error instanceof Error ? error : new Error(String(error))));
}
