import express, { type Request, type RequestHandler, type Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OpenAPIObject } from 'trpc-to-openapi';
import type { AppDeps } from '../app-deps.js';
import type { Principal } from '../auth/principal.js';
import { authorizeProject, type ProjectAccess, type ProjectAccessLevel } from '../auth/project-access.js';
import { describeError } from '../errors/describe.js';
import { writePositions, type WritePosition } from '../db/wal-position.js';
import { answerWritePosition, depsForRead } from '../trpc/consistency.js';
import { principalOf } from './request-tracking.js';
import { sendError } from './send-error.js';

/*
 * The plain-express routes under `/v1/{projectId}`: bodies and answers that stream (file
 * uploads and downloads, contents import and export, the realtime stream), which procedures
 * cannot take. Each is one descriptor, registered once in app.ts: its path and method, the
 * right it needs, its OpenAPI operation and its handler.
 */

/** What a plain route's handler gets: the checked access, the entity manager it was checked with, the caller. */
export interface PlainRequest {
  access: ProjectAccess;
  em: EntityManager;
  principal: Principal;
  /** A write calls this after its last commit, before it answers: the consistency token (docs/scaling-out.md#read-replicas). */
  committed(): Promise<void>;
}

type Operation = Record<string, unknown> & { requestBody?: { content?: Record<string, unknown> }; responses?: Record<string, unknown> };

export interface PlainRoute {
  method: 'get' | 'post' | 'put';
  /** The path under `/v1`, as OpenAPI writes it: `/{projectId}/files/{fileId}`. */
  path: string;
  /** The right the caller needs on `{projectId}`. */
  access: ProjectAccessLevel;
  /**
   * A GET whose statements may run on a read replica (docs/scaling-out.md#read-replicas): the pool of
   * `access.deps` is then the chosen node's. Not for event streams, which follow the primary.
   */
  replica?: true;
  /**
   * Only the requests this route takes; the others go on to the procedure of the same path and
   * method (a JSON PUT of a file is `files.update`).
   */
  takes?: (req: Request) => boolean;
  openapi:
    | {
        /** The whole operation, which the generator cannot see. */
        operation: Operation;
        /**
         * Responses put back after the document is completed (which keeps one success and the
         * derived errors of an operation): 206, 304, or an error worded for this route.
         */
        responses?: Record<string, unknown>;
      }
    | {
        /** The path and method are a procedure's too: the request bodies this route adds to its operation. */
        requestBodies: Record<string, unknown>;
      };
  handle(req: Request, res: Response, request: PlainRequest): Promise<void>;
}

/** `/{projectId}/files` → `/:projectId/files`. */
const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * One route as express runs it. Same model as the procedures: the credential (401), the right
 * on the project (403/404), then the handler. Every failure is the documented error body
 * (docs/reliability.md#errors); what is left of a request body is read and dropped so that the
 * answer arrives, on a connection not used again (the client may still be sending). A failure
 * after the headers went out can only cut the response short.
 */
function handlerOf(deps: AppDeps, route: PlainRoute): RequestHandler {
  return async (req, res, next) => {
    if (route.takes && !route.takes(req)) return next();
    try {
      const principal = await principalOf(deps.credentials, req, res);
      const em = deps.orm.em.fork();
      const routed = route.replica ? depsForRead(deps, req, res, route.access) : deps;
      const access = await authorizeProject(routed, em, principal, req.headers, String(req.params.projectId), route.access);
      if (route.method === 'get') {
        await route.handle(req, res, { access, em, principal, committed: async () => {} });
      } else {
        const store: WritePosition = { lsn: null };
        await writePositions.run(store, () => route.handle(req, res, { access, em, principal, committed: () => answerWritePosition(deps, res, store) }));
      }
    } catch (error) {
      const described = describeError(error);
      if (described.internal) deps.logger.error({ err: error, path: req.originalUrl, requestId: res.locals.requestId }, 'request failed');
      if (!req.complete) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        req.resume();
      }
      if (res.headersSent) res.destroy();
      else sendError(res, described);
    }
  };
}

/** The routes as one express router, mounted under `/v1` after the rate limiter and before the procedures. */
export function plainRouter(deps: AppDeps, routes: readonly PlainRoute[]): express.Router {
  const router = express.Router();
  for (const route of routes) router[route.method](expressPath(route.path), handlerOf(deps, route));
  return router;
}

/** For the `/v1` route index (404 versus 405): the routes no procedure already lists. */
export const plainRouteEntries = (routes: readonly PlainRoute[]): { method: string; path: string }[] =>
  routes.filter((route) => 'operation' in route.openapi).map((route) => ({ method: route.method.toUpperCase(), path: route.path }));

/** The operations the generator cannot see, as extra paths of the document. */
export function plainOpenApiPaths(routes: readonly PlainRoute[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    if ('operation' in route.openapi) paths[route.path] = { ...paths[route.path], [route.method]: route.openapi.operation };
  }
  return paths;
}

/** Completes the generated document: the request bodies routes add to procedures, and their own responses. */
export function documentPlainRoutes(doc: OpenAPIObject, routes: readonly PlainRoute[]): OpenAPIObject {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const route of routes) {
    const op = paths[route.path]?.[route.method];
    if (!op) continue;
    if ('requestBodies' in route.openapi) {
      op.requestBody ??= { content: {} };
      op.requestBody.content = { ...route.openapi.requestBodies, ...op.requestBody.content };
    } else if (route.openapi.responses && op.responses) {
      op.responses = Object.fromEntries(Object.entries({ ...op.responses, ...route.openapi.responses }).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return doc;
}
