import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../app-deps.js';

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
}

export function createContextFactory(deps: AppDeps) {
  return ({ req, res }: { req: IncomingMessage; res: ServerResponse }): Context => ({
    deps,
    em: deps.orm.em.fork(),
    req,
    res,
    requestId: String(res.getHeader('x-request-id') ?? ''),
    response: { headers: {} },
  });
}

/** Marks a create: 201 with `Location` pointing at the new resource (SPEC §2). */
export function markCreated(ctx: Context, id: string): void {
  ctx.response.status = 201;
  // express strips its mount point from req.url; originalUrl keeps the /v1 prefix.
  const url = (ctx.req as { originalUrl?: string }).originalUrl ?? ctx.req.url ?? '';
  const path = url.split('?')[0].replace(/\/+$/, '');
  if (path.startsWith('/v1/')) ctx.response.headers.location = `${path}/${id}`;
}

/** Marks a delete: 204 with no body (SPEC §2). */
export function markNoContent(ctx: Context): void {
  ctx.response.status = 204;
}
