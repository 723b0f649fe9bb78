import type { AnyProcedure, AnyRouter } from '@trpc/server';
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
import { queryShapeOf, type QueryShape } from './v1-query.js';

/*
 * The one route table of `/v1`, and the only place that uses trpc-to-openapi's internals: the
 * routes of the procedures' `openapi` meta, matched with the library's own path patterns and in
 * its order, plus the plain express routes (file upload and download, the OpenAPI document) for
 * telling 405 from 404.
 */

export interface V1Route {
  /** The procedure's path in the router (`contents.list`). */
  path: string;
  procedure: AnyProcedure;
  type: 'query' | 'mutation';
  /** POST, PUT and PATCH read the JSON body; GET and DELETE the query string, as in the adapter. */
  takesBody: boolean;
  /** null when the procedure takes no input (z.void()); the query parameters it declares otherwise. */
  query: QueryShape | null;
}

export interface V1Match {
  route: V1Route;
  /** The path parameters (`{projectId}`...), as the path spells them. */
  params: Record<string, string> | undefined;
}

export interface V1RouteTable {
  /** The procedure a request reaches, if any. `path` is the pathname under `/v1`. */
  match(method: string, path: string): V1Match | undefined;
  /** The methods a path answers to (procedures and plain routes); empty when it is unknown. */
  allowedMethods(path: string): string[];
}

type Schema = z.core.$ZodType;

interface Entry {
  method: string;
  pattern: RegExp;
  route?: V1Route;
}

/** `{projectId}` and the like: the path's parameters, which the query string cannot set. */
const pathParamsOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** `METHOD segment-count`: a `{param}` never spans a `/`, so a path can only match routes with as many segments. */
const routeKey = (method: string, path: string) => `${method} ${path.split('/').length}`;

function routeOf(path: string, procedure: AnyProcedure, method: string): V1Route {
  const takesBody = method !== 'GET' && method !== 'DELETE';
  const unwrapped = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
  // No coerceSchema (which the adapter runs on every request): it switches the shared schemas
  // to `Number()` coercion in place, for bodies and `/trpc` too. Query strings are read by
  // v1-query.ts instead, strictly.
  let query: QueryShape | null = null;
  if (!instanceofZodTypeLikeVoid(unwrapped)) {
    query = instanceofZodTypeObject(unwrapped) && !takesBody ? queryShapeOf(unwrapped.shape as Record<string, Schema>, pathParamsOf(path)) : new Map();
  }
  return { path, procedure, type: procedure._def.type as V1Route['type'], takesBody, query };
}

/** The table of the router's `/v1` procedures and the given plain routes. */
export function buildV1Routes(router: AnyRouter, plainRoutes: { method: string; path: string }[] = []): V1RouteTable {
  const entries: Entry[] = [];
  // By method and segment count, each group in the router's order: the first match wins,
  // exactly as in trpc-to-openapi's own lookup, which tries every route of the method in turn.
  const byKey = new Map<string, Entry[]>();
  forEachOpenApiProcedure(router._def.procedures, ({ path, procedure, meta: { openapi } }) => {
    if (procedure._def.type === 'subscription') return;
    const normalized = normalizePath(openapi.path);
    const entry = { method: openapi.method, pattern: getPathRegExp(normalized), route: routeOf(path, procedure as AnyProcedure, openapi.method) };
    entries.push(entry);
    const key = routeKey(openapi.method, normalized);
    byKey.set(key, [...(byKey.get(key) ?? []), entry]);
  });
  for (const { method, path } of plainRoutes) entries.push({ method, pattern: getPathRegExp(normalizePath(path)) });

  return {
    match(method, path) {
      const normalized = normalizePath(path);
      for (const entry of byKey.get(routeKey(method, normalized)) ?? []) {
        const found = entry.pattern.exec(normalized);
        if (found) return { route: entry.route!, params: found.groups };
      }
      return undefined;
    },
    allowedMethods(path) {
      const normalized = normalizePath(path);
      return [...new Set(entries.filter((entry) => entry.pattern.test(normalized)).map((entry) => entry.method))];
    },
  };
}
