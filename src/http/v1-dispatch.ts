import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyProcedure, AnyRouter } from '@trpc/server';
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import {
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  normalizePath,
  unwrapZodType,
} from 'trpc-to-openapi';
import type { AppDeps } from '../app-deps.js';
import { describeError } from '../errors/describe.js';
import type { Context } from '../trpc/context.js';
import { deferInputError } from './deferred-body-error.js';
import { sendError } from './send-error.js';
import { queryShapeOf, readQuery, type QueryShape } from './v1-query.js';

interface Route {
  pattern: RegExp;
  path: string;
  procedure: AnyProcedure;
  type: 'query' | 'mutation';
  /** null when the procedure takes no input (z.void()); the query parameters it declares otherwise. */
  query: QueryShape | null;
}

type Schema = z.core.$ZodType;

/** `{projectId}` and the like: the path's parameters, which the query string cannot set. */
const pathParamsOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** Methods whose input is the JSON body; the others (GET, DELETE) read the query string, as in the adapter. */
const takesBody = (method: string) => method !== 'GET' && method !== 'DELETE';

/** `METHOD segment-count`: a `{param}` never spans a `/`, so a path can only match routes with as many segments. */
const routeKey = (method: string, path: string) => `${method} ${path.split('/').length}`;

/**
 * The routes of the router by method and segment count, each group in the router's order: the
 * first match wins, exactly as in trpc-to-openapi's own lookup, which tries every route of the
 * method in turn.
 */
function indexRoutes(router: AnyRouter): Map<string, Route[]> {
  const index = new Map<string, Route[]>();
  forEachOpenApiProcedure(router._def.procedures, ({ path, procedure, meta: { openapi } }) => {
    const type = procedure._def.type;
    if (type === 'subscription') return;
    const normalized = normalizePath(openapi.path);
    const { inputParser } = getInputOutputParsers(procedure);
    const unwrapped = unwrapZodType(inputParser, true);
    // No coerceSchema (which the adapter runs on every request): it switches the shared schemas
    // to `Number()` coercion in place, for bodies and `/trpc` too. Query strings are read by
    // v1-query.ts instead, strictly.
    let query: QueryShape | null = null;
    if (!instanceofZodTypeLikeVoid(unwrapped)) {
      query = new Map();
      if (instanceofZodTypeObject(unwrapped) && !takesBody(openapi.method)) {
        query = queryShapeOf(unwrapped.shape as Record<string, Schema>, pathParamsOf(normalized));
      }
    }
    const key = routeKey(openapi.method, normalized);
    const routes = index.get(key) ?? [];
    routes.push({ pattern: getPathRegExp(normalized), path, procedure: procedure as AnyProcedure, type, query });
    index.set(key, routes);
  });
  return index;
}

/**
 * What the procedure gets: the query string (or the body the JSON layer read) and the path
 * parameters. A query string that v1-query.ts refuses becomes the path parameters alone,
 * carrying the refusal for after the access checks.
 */
function inputOf(req: IncomingMessage & { body?: object; query?: Record<string, unknown> }, route: Route, pathInput: Record<string, string> | undefined): unknown {
  if (route.query === null) return undefined;
  if (takesBody(req.method!)) return { ...req.body, ...pathInput };
  const read = readQuery(req.query ?? {}, route.query);
  if ('error' in read) return deferInputError({ ...pathInput }, read.error);
  return { ...read.input, ...pathInput };
}

/** The answer as the adapter (with rewriteErrorBodies) writes it: JSON with its length; 204 without a body. */
function sendData(res: ServerResponse, ctx: Context, data: unknown): void {
  res.statusCode = ctx.response.status ?? 200;
  for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
  if (res.statusCode === 204) {
    res.end();
    return;
  }
  const body = JSON.stringify(data) ?? '';
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * `/v1` requests dispatched straight to their tRPC procedure: the routes, path patterns and
 * input assembly of trpc-to-openapi, the same procedure, middlewares, zod input and output, and
 * the same answers as through its adapter (tested operation by operation, with every kind of
 * caller), without the adapter's per-request costs: a WHATWG Request (with a body stream for
 * writes) built only to obtain an AbortSignal no procedure reads, a walk over the input schema,
 * a proxy per call and a linear scan of every route. One deliberate difference: query strings
 * are read strictly (v1-query.ts) where the adapter coerces them with `Number()`. Bodies are
 * read before this (v1.ts); anything unmatched goes on.
 */
export function v1Dispatch(deps: AppDeps, router: AnyRouter, createContext: (opts: { req: IncomingMessage; res: ServerResponse }) => Context): RequestHandler {
  const index = indexRoutes(router);
  return (req, res, next) => {
    const path = normalizePath(new URL(`http://127.0.0.1${req.url}`).pathname);
    let route: Route | undefined;
    let match: RegExpExecArray | null = null;
    for (const candidate of index.get(routeKey(req.method, path)) ?? []) {
      match = candidate.pattern.exec(path);
      if (match) {
        route = candidate;
        break;
      }
    }
    if (!route || !match) return next();
    const input = inputOf(req, route, match.groups);
    const ctx = createContext({ req, res });
    const { type } = route;
    route.procedure({ path: route.path, getRawInput: async () => input, ctx, type, signal: undefined, batchIndex: 0 }).then(
      (data) => sendData(res, ctx, data),
      (error: unknown) => {
        const described = describeError(error, type);
        if (described.internal) deps.logger.error({ err: error, path: route.path, requestId: ctx.requestId }, 'request failed');
        sendError(res, described);
      },
    );
  };
}
