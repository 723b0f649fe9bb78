import { badRequest, invalidQuery, type AppError } from '../errors/app-error.js';
import { describeJsonProblem, findJsonProblem } from '../shared/json-guard.js';

/**
 * docs/reliability.md#errors orders the checks 401 → 403 → 404 → 400/415/413: a malformed body or query string
 * must not hide an authentication or authorization failure. So input that cannot be read is not
 * answered at once: the `/v1` layer hands the failure to the procedure's context
 * (`ctx.inputError`) with only the path parameters as input, and the access middlewares raise it
 * once the caller and the resource have been checked.
 *
 * Then input that PostgreSQL cannot store (NUL characters, unpaired surrogates, overflowing
 * numbers, absurd nesting; see json-guard) is refused as 400: INVALID_QUERY for a query (its
 * input is the query string), BAD_REQUEST otherwise. `input` is the procedure's raw input, on
 * both faces.
 */
export function raiseInputErrors(inputError: AppError | undefined, input: unknown, type: 'query' | 'mutation' | 'subscription'): void {
  if (inputError) throw inputError;
  const problem = findJsonProblem(input);
  if (!problem) return;
  const message = `Invalid request: ${describeJsonProblem(problem)}`;
  throw type === 'query' ? invalidQuery(message) : badRequest(message);
}
