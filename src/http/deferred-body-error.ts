import type { IncomingMessage } from 'node:http';
import { AppError, badRequest, invalidQuery } from '../errors/app-error.js';
import { describeJsonProblem, findJsonProblem } from '../shared/json-guard.js';

/**
 * SPEC §3 orders the checks 401 → 403 → 404 → 400/415/413: a malformed body or query string
 * must not hide an authentication or authorization failure. So input that cannot be read is not
 * answered at once: the `/v1` layer records the failure on the input it hands the procedure (an
 * empty body, or only the path parameters); the access middlewares raise it once the caller and
 * the resource have been checked.
 */
const INPUT_ERROR = Symbol('tabula.inputError');

type WithInputError = { [INPUT_ERROR]?: AppError };

/**
 * `input` marked with the failure. Enumerable, so that trpc-to-openapi's adapter, which spreads
 * the body into the input, keeps it.
 */
export function deferInputError<T extends object>(input: T, error: AppError): T {
  Object.defineProperty(input, INPUT_ERROR, { value: error, enumerable: true });
  return input;
}

/** Replaces the request body with an empty object that carries the failure. */
export function deferBodyError(req: IncomingMessage & { body?: unknown }, error: AppError): void {
  req.body = deferInputError({}, error);
}

/**
 * Throws the deferred input failure, if any, then refuses input that PostgreSQL cannot store (NUL
 * characters, unpaired surrogates, overflowing numbers, absurd nesting; see json-guard) as 400:
 * INVALID_QUERY for a query (its input is the query string), BAD_REQUEST otherwise. `input` is
 * the procedure's raw input, on both faces.
 */
export function raiseInputErrors(input: unknown, type: 'query' | 'mutation' | 'subscription'): void {
  const error = (input as WithInputError | null | undefined)?.[INPUT_ERROR];
  if (error) throw error;
  const problem = findJsonProblem(input);
  if (!problem) return;
  const message = `Invalid request: ${describeJsonProblem(problem)}`;
  throw type === 'query' ? invalidQuery(message) : badRequest(message);
}
