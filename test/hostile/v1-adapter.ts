import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { AppDeps } from '../../src/app-deps.js';
import type { AppError } from '../../src/errors/app-error.js';
import { describeError } from '../../src/errors/describe.js';
import { factsOf } from '../../src/http/request-tracking.js';
import { sendUnmatched } from '../../src/http/v1.js';
import { jsonBodyReader } from '../../src/http/v1-body.js';
import type { V1RouteTable } from '../../src/http/v1-routes.js';
import { createContextFactory, type Context } from '../../src/trpc/context.js';
import type { AppRouter } from '../../src/trpc/router.js';

/**
 * trpc-to-openapi writes its own error shape; this rewrites it into the error body, which the
 * error formatter has already put under `data.error`. It also sets Content-Length.
 */
function rewriteErrorBodies(res: ServerResponse): void {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    if (res.statusCode === 204) {
      res.removeHeader('Content-Type');
      return end();
    }
    if (res.statusCode >= 400 && typeof chunk === 'string') {
      try {
        const parsed = JSON.parse(chunk) as { data?: { error?: unknown } };
        if (parsed.data?.error) chunk = JSON.stringify({ error: parsed.data.error });
      } catch {
        // not JSON: leave it
      }
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
    }
    if (typeof chunk === 'string' && !res.headersSent) res.setHeader('Content-Length', Buffer.byteLength(chunk));
    return end(chunk);
  }) as ServerResponse['end'];
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * `/v1` through trpc-to-openapi's own adapter: the reference that the direct dispatcher
 * (src/http/v1.ts) is tested against, answer for answer. The body is read by the same reader;
 * the adapter wants it on `req.body` with an `application/json` Content-Type (it refuses any
 * other type itself, before authentication), and a failure goes to the context, as on the
 * direct path.
 */
export function adapterV1Handlers(deps: AppDeps, appRouter: AppRouter, routes: V1RouteTable): RequestHandler[] {
  const createContext = createContextFactory(deps);
  const readBody = jsonBodyReader(deps.config.BODY_MAX_BYTES);
  const inputErrors = new WeakMap<IncomingMessage, AppError>();

  const handler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req, res }: { req: IncomingMessage; res: ServerResponse }) => createContext({ req, res, facts: factsOf(res), inputError: inputErrors.get(req), conditional: req.method === 'GET' }),
    maxBodySize: deps.config.BODY_MAX_BYTES,
    responseMeta: ({ ctx, errors, type }: { ctx?: Context; errors: unknown[]; type: string }) => {
      if (errors.length > 0) {
        const described = describeError(errors[0], type);
        return { status: described.status, headers: described.headers };
      }
      ctx?.beforeSend?.();
      return { status: ctx?.response.status ?? 200, headers: ctx?.response.headers ?? {} };
    },
  } as Parameters<typeof createOpenApiNodeHttpHandler>[0]);

  const body: RequestHandler = async (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) return next();
    const read = await readBody(req, res);
    if (read.error) inputErrors.set(req, read.error);
    req.body = read.body ?? {};
    req.headers['content-type'] = 'application/json';
    next();
  };
  const adapter: RequestHandler = (req, res, next) => {
    rewriteErrorBodies(res);
    handler(req, res, next).catch(next);
  };
  const unmatched: RequestHandler = (req, res) => sendUnmatched(routes, req, res);
  return [body, adapter, unmatched];
}
