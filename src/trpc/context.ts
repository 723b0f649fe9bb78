import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../app-deps.js';
import type { AppError } from '../errors/app-error.js';
import type { RequestFacts } from './request-facts.js';

/** What a procedure may set on the HTTP response of the `/v1` face (status, Location...). */
export interface ResponseMeta {
  status?: number;
  headers: Record<string, string>;
}

export interface Context {
  deps: AppDeps;
  /** A fork of the ORM's entity manager: one unit of work per request. */
  em: EntityManager;
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  response: ResponseMeta;
  /** What the request log and metrics learn from the procedures (see request-facts.ts). */
  facts: RequestFacts;
  /** Input the `/v1` layer could not read, raised after the access checks (see input-errors.ts). */
  inputError?: AppError;
  /** The `/v1` face: GETs answer ETags and cache headers, and 304 to `If-None-Match` (http-cache.ts). */
  conditional?: boolean;
  /** Run by the `/v1` layer just before a success is written (http-cache.ts completes its headers). */
  beforeSend?: () => void;
}

/** What the web layer knows of a request when it hands it to a procedure. */
export interface RequestArrival {
  req: IncomingMessage;
  res: ServerResponse;
  facts: RequestFacts;
  inputError?: AppError;
  conditional?: boolean;
}

/**
 * A fork of the ORM's entity manager, made when first used: most requests (contents reads and
 * writes go through the plain pool) never use it, and a fork cost each of them a few percent
 * of its CPU (MikroORM rewrites process.env twice per fork). tRPC copies the context object from
 * middleware to middleware, so the laziness lives in the value: a proxy that forks on first use
 * and then hands every property and method of the fork through, bound to the fork.
 */
function lazyFork(parent: EntityManager): EntityManager {
  let fork: EntityManager | undefined;
  const real = () => (fork ??= parent.fork());
  return new Proxy({} as EntityManager, {
    get(_target, property) {
      const em = real();
      const value: unknown = Reflect.get(em, property, em);
      return typeof value === 'function' ? value.bind(em) : value;
    },
    set: (_target, property, value) => Reflect.set(real(), property, value),
    has: (_target, property) => Reflect.has(real(), property),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

export function createContextFactory(deps: AppDeps) {
  return ({ req, res, facts, inputError, conditional }: RequestArrival): Context => ({
    deps,
    em: lazyFork(deps.orm.em),
    req,
    res,
    requestId: String(res.getHeader('x-request-id') ?? ''),
    response: { headers: {} },
    facts,
    inputError,
    conditional,
  });
}

/** Marks a create: 201 with `Location` pointing at the new resource. */
export function markCreated(ctx: Context, id: string): void {
  ctx.response.status = 201;
  // express strips its mount point from req.url; originalUrl keeps the /v1 prefix.
  const url = (ctx.req as { originalUrl?: string }).originalUrl ?? ctx.req.url ?? '';
  const path = url.split('?')[0].replace(/\/+$/, '');
  if (path.startsWith('/v1/')) ctx.response.headers.location = `${path}/${id}`;
}

/** Marks a delete: 204 with no body. */
export function markNoContent(ctx: Context): void {
  ctx.response.status = 204;
}
