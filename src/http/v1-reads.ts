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

interface ReadRoute {
  pattern: RegExp;
  path: string;
  procedure: AnyProcedure;
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

/**
 * The GET routes of the router, grouped by how many segments their path has (a `{param}` never
 * spans a `/`), each group in the router's order: the first match wins, exactly as in
 * trpc-to-openapi's own lookup, which tries every route of the method in turn.
 */
function indexReads(router: AnyRouter): Map<number, ReadRoute[]> {
  const index = new Map<number, ReadRoute[]>();
  forEachOpenApiProcedure(router._def.procedures, ({ path, procedure, meta: { openapi } }) => {
    if (openapi.method !== 'GET' || procedure._def.type !== 'query') return;
    const normalized = normalizePath(openapi.path);
    const { inputParser } = getInputOutputParsers(procedure);
    const unwrapped = unwrapZodType(inputParser, true);
    let arrayKeys: string[] | null = null;
    if (!instanceofZodTypeLikeVoid(unwrapped)) {
      arrayKeys = [];
      if (instanceofZodTypeObject(unwrapped)) {
        // The adapter does this on every request; the schemas are the same objects.
        coerceSchema(unwrapped);
        arrayKeys = arrayKeysOf(unwrapped);
      }
    }
    const segments = normalized.split('/').length;
    const routes = index.get(segments) ?? [];
    routes.push({ pattern: getPathRegExp(normalized), path, procedure: procedure as AnyProcedure, arrayKeys });
    index.set(segments, routes);
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

/**
 * `/v1` reads dispatched straight to their tRPC procedure: the same procedure, middlewares,
 * zod input and output as through trpc-to-openapi's adapter, and the same answers (tested
 * operation by operation), without the adapter's per-request costs: a WHATWG Request built
 * only to obtain an AbortSignal no procedure reads, a walk over the input schema, a proxy per
 * call and a linear scan of every route. Writes and anything unmatched go on to the adapter.
 */
export function v1Reads(deps: AppDeps, router: AnyRouter, createContext: (opts: { req: IncomingMessage; res: ServerResponse }) => Context): RequestHandler {
  const index = indexReads(router);
  return (req, res, next) => {
    if (req.method !== 'GET') return next();
    const path = normalizePath(new URL(`http://127.0.0.1${req.url}`).pathname);
    let route: ReadRoute | undefined;
    let match: RegExpExecArray | null = null;
    for (const candidate of index.get(path.split('/').length) ?? []) {
      match = candidate.pattern.exec(path);
      if (match) {
        route = candidate;
        break;
      }
    }
    if (!route || !match) return next();
    const input = route.arrayKeys === null ? undefined : { ...queryInput(req), ...match.groups };
    if (input) {
      for (const key of route.arrayKeys!) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
    }
    const ctx = createContext({ req, res });
    route.procedure({ path: route.path, getRawInput: async () => input, ctx, type: 'query', signal: undefined, batchIndex: 0 }).then(
      (data) => {
        const body = JSON.stringify(data) ?? '';
        res.statusCode = ctx.response.status ?? 200;
        res.setHeader('Content-Type', 'application/json');
        for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
        res.setHeader('Content-Length', Buffer.byteLength(body));
        res.end(body);
      },
      (error: unknown) => {
        const described = describeError(error, 'query');
        if (described.internal) deps.logger.error({ err: error, path: route.path, requestId: ctx.requestId }, 'request failed');
        sendError(res, described);
      },
    );
  };
}
