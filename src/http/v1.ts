import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { TRPCError } from '@trpc/server';
import type { AppDeps } from '../app-deps.js';
import type { AppError } from '../errors/app-error.js';
import { methodNotAllowed, noRoute } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import { createContextFactory, type Context } from '../trpc/context.js';
import { NotModified } from '../trpc/http-cache.js';
import type { AppRouter } from '../trpc/router.js';
import { factsOf } from './request-tracking.js';
import { sendError } from './send-error.js';
import { jsonBodyReader } from './v1-body.js';
import { readQuery } from './v1-query.js';
import { toJsonBody } from '../shared/encoded-json.js';
import { endWithJson } from './json-body.js';
import type { V1Route, V1RouteTable } from './v1-routes.js';
import { arrivalTick, requestArrival } from '../modules/contents/list-cache/table-sync.js';

/** The answer as trpc-to-openapi's adapter writes it: JSON with its length; 204 without a body. */
function sendData(res: ServerResponse, ctx: Context, data: unknown): void {
  ctx.beforeSend?.();
  res.statusCode = ctx.response.status ?? 200;
  for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
  if (res.statusCode === 204) {
    res.end();
    return;
  }
  endWithJson(res, toJsonBody(data));
}

/** 304 to a conditional GET whose tag is current: the headers of a 200, no body (docs/scaling-out.md#http-caches-and-purging). */
function sendNotModified(res: ServerResponse, ctx: Context): void {
  res.statusCode = 304;
  for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
  res.end();
}

/** 405 with Allow for a known path and another method, 404 otherwise. */
export function sendUnmatched(routes: V1RouteTable, req: Request, res: Response): void {
  if (!req.complete) req.resume();
  const allowed = routes.allowedMethods(req.path);
  sendError(res, describeError(allowed.length > 0 ? methodNotAllowed(req.method, allowed) : noRoute(req.method, `/v1${req.path}`)));
}

/**
 * The `/v1` face: each request goes straight to its tRPC procedure, with the routes, path
 * patterns and input assembly of trpc-to-openapi, the same procedure, middlewares, zod input and
 * output, and the same answers as through its adapter (test/hostile/direct-dispatch.test.ts
 * compares them operation by operation, with every kind of caller), without the adapter's
 * per-request costs: a WHATWG Request (with a body stream for writes) built only to obtain an
 * AbortSignal no procedure reads, a walk over the input schema, a proxy per call and a linear
 * scan of every route. One deliberate difference: query strings are read strictly (v1-query.ts)
 * where the adapter coerces them with `Number()`.
 *
 * The input is the JSON body (writes) or the query string (reads), with the path parameters
 * over it. Input that cannot be read becomes the path parameters alone, and the failure travels
 * on the context to be raised after the access checks (trpc/input-errors.ts).
 */
export function createV1Handler(deps: AppDeps, appRouter: AppRouter, routes: V1RouteTable): RequestHandler {
  const createContext = createContextFactory(deps);
  const readBody = jsonBodyReader(deps.config.BODY_MAX_BYTES);

  const run = (req: Request, res: Response, route: V1Route, input: unknown, inputError?: AppError) => {
    const ctx = createContext({ req, res, facts: factsOf(res), inputError, conditional: req.method === 'GET' });
    const { type, path } = route;
    // A change-log read started from now on sees what the client was answered before it asked
    // (list-cache/table-sync.ts): a GET's reads may share one. Not a write's: what it reads after
    // its own commit must come from a read started after that commit.
    const call = () => route.procedure({ path, getRawInput: async () => input, ctx, type, signal: undefined, batchIndex: 0 });
    (req.method === 'GET' ? requestArrival.run(arrivalTick(), call) : call()).then(
      (data) => sendData(res, ctx, data),
      (error: unknown) => {
        if (error instanceof TRPCError && error.cause instanceof NotModified) return sendNotModified(res, ctx);
        const described = describeError(error, type);
        if (described.internal) deps.logger.error({ err: error, path, requestId: ctx.requestId }, 'request failed');
        sendError(res, described);
      },
    );
  };

  return (req, res) => {
    const found = routes.match(req.method, new URL(`http://127.0.0.1${req.url}`).pathname);
    if (!found) return sendUnmatched(routes, req, res);
    const { route, params } = found;
    if (route.query === null) {
      // No input at all: a body, if any, is not read.
      if (!req.complete) req.resume();
      return run(req, res, route, undefined);
    }
    if (!route.takesBody) {
      const read = readQuery((req.query ?? {}) as Record<string, unknown>, route.query);
      return 'error' in read ? run(req, res, route, { ...params }, read.error) : run(req, res, route, { ...read.input, ...params });
    }
    return readBody(req, res).then((read) =>
      read.error ? run(req, res, route, { ...params }, read.error) : run(req, res, route, { ...read.body, ...params }),
    );
  };
}
