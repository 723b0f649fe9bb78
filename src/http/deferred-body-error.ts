import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors/app-error.js';

/**
 * SPEC §3 orders the checks 401 → 403 → 404 → 400/415/413: a malformed body must not hide an
 * authentication or authorization failure. So a body that cannot be read is not answered at
 * once: the `/v1` layer records the failure here and hands the procedure an empty body; the
 * access middlewares raise it once the caller and the resource have been checked.
 */
const BODY_ERROR = Symbol('tabula.bodyError');

type WithBodyError = { [BODY_ERROR]?: AppError };

/** Replaces the request body with an empty object that carries the failure. */
export function deferBodyError(req: IncomingMessage & { body?: unknown }, error: AppError): void {
  const marker: WithBodyError = {};
  Object.defineProperty(marker, BODY_ERROR, { value: error, enumerable: true });
  req.body = marker;
}

/** Throws the deferred body failure, if any. `input` is the procedure's raw input. */
export function raiseDeferredBodyError(input: unknown): void {
  const error = (input as WithBodyError | null | undefined)?.[BODY_ERROR];
  if (error) throw error;
}
