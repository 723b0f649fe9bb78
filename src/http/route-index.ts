import type { AnyRouter } from '@trpc/server';
import type { Meta } from '../trpc/trpc.js';

export interface RouteEntry {
  method: string;
  path: string;
  pattern: RegExp;
}

/** `/{projectId}/tables` → `^/[^/]+/tables$`, matched the way trpc-to-openapi matches. */
const toPattern = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i');

/** Every `/v1` route of the router (and any extra plain-express routes), for 404 vs 405. */
export function buildRouteIndex(appRouter: AnyRouter, extra: { method: string; path: string }[] = []): RouteEntry[] {
  const entries: RouteEntry[] = [];
  for (const procedure of Object.values(appRouter._def.procedures) as { _def: { meta?: Meta } }[]) {
    const openapi = procedure._def.meta?.openapi;
    if (openapi && openapi.enabled !== false) entries.push({ method: openapi.method, path: openapi.path, pattern: toPattern(openapi.path) });
  }
  for (const route of extra) entries.push({ ...route, pattern: toPattern(route.path) });
  return entries;
}

/** The methods a path answers to; empty when the path is unknown. */
export function allowedMethods(index: RouteEntry[], path: string): string[] {
  return [...new Set(index.filter((r) => r.pattern.test(path)).map((r) => r.method))];
}
