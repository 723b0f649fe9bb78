import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyProcedure, AnyRouter } from '@trpc/server';
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import {
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
} from 'trpc-to-openapi';
import type { AppDeps } from '../app-deps.js';
import { describeError } from '../errors/describe.js';
import type { Context } from '../trpc/context.js';
import { sendError } from './send-error.js';

interface Route {
  pattern: RegExp;
  path: string;
  procedure: AnyProcedure;
  type: 'query' | 'mutation';
  /** null when the procedure takes no input (z.void()). */
  arrayKeys: string[] | null;
}

type Schema = z.core.$ZodType;
const isArraySchema = (schema: Schema) => schema._zod.def.type === 'array';

/** Query-string keys whose schema is an array (optional or not): a single value is wrapped, as the adapter does. */
function arrayKeysOf(schema: { shape: Record<string, Schema> }): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => isArraySchema(field) || (instanceofZodTypeOptional(field) && isArraySchema((field as z.ZodOptional).unwrap())))
    .map(([key]) => key);
}

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
    let arrayKeys: string[] | null = null;
    if (!instanceofZodTypeLikeVoid(unwrapped)) {
      arrayKeys = [];
      if (instanceofZodTypeObject(unwrapped)) {
        // The adapter does this on every request, bodies included; the schemas are the same objects.
        coerceSchema(unwrapped);
        if (!takesBody(openapi.method)) arrayKeys = arrayKeysOf(unwrapped);
      }
    }
    const key = routeKey(openapi.method, normalized);
    const routes = index.get(key) ?? [];
    routes.push({ pattern: getPathRegExp(normalized), path, procedure: procedure as AnyProcedure, type, arrayKeys });
    index.set(key, routes);
  });
  return index;
}

/** The first value of each query parameter that has one, arrays for repeated ones (as the adapter reads them). */
function queryInput(req: IncomingMessage & { query?: Record<string, unknown> }): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const query = req.query ?? {};
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (value) input[key] = Array.isArray(value) && value.length === 1 ? value[0] : value;
  }
  return input;
}

/** What the procedure gets: the query string (or the body the JSON layer read) and the path parameters. */
function inputOf(req: IncomingMessage & { body?: object }, route: Route, pathInput: Record<string, string> | undefined): unknown {
  if (route.arrayKeys === null) return undefined;
  if (takesBody(req.method!)) return { ...req.body, ...pathInput };
  const input = { ...queryInput(req), ...pathInput };
  for (const key of route.arrayKeys) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  return input;
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
 * `/v1` requests dispatched straight to their tRPC procedure: the routes, path patterns, input
 * assembly and coercion of trpc-to-openapi, the same procedure, middlewares, zod input and
 * output, and the same answers as through its adapter (tested operation by operation, with
 * every kind of caller), without the adapter's per-request costs: a WHATWG Request (with a body
 * stream for writes) built only to obtain an AbortSignal no procedure reads, a walk over the
 * input schema, a proxy per call and a linear scan of every route. Bodies are read before this
 * (v1.ts); anything unmatched goes on.
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
