import type { IncomingMessage } from 'node:http';
import { AppError, badRequest, invalidQuery } from '../errors/app-error.js';
import { describeJsonProblem, findJsonProblem } from '../shared/json-guard.js';

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

/**
 * Throws the deferred body failure, if any, then refuses input that PostgreSQL cannot store (NUL
 * characters, unpaired surrogates, overflowing numbers, absurd nesting; see json-guard) as 400:
 * INVALID_QUERY for a query (its input is the query string), BAD_REQUEST otherwise. `input` is
 * the procedure's raw input, on both faces.
 */
export function raiseInputErrors(input: unknown, type: 'query' | 'mutation' | 'subscription'): void {
  const error = (input as WithBodyError | null | undefined)?.[BODY_ERROR];
  if (error) throw error;
  const problem = findJsonProblem(input);
  if (!problem) return;
  const message = `Invalid request: ${describeJsonProblem(problem)}`;
  throw type === 'query' ? invalidQuery(message) : badRequest(message);
}
