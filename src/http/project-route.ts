import type { Request, RequestHandler, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../app-deps.js';
import type { Principal } from '../auth/principal.js';
import { authorizeProject, type ProjectAccessLevel, type ProjectScope } from '../auth/project-access.js';
import { describeError } from '../errors/describe.js';
import { principalOf } from './request-facts.js';
import { sendError } from './send-error.js';

/** What a project route's work gets: the checked access, the entity manager it was checked with, the caller. */
export interface ProjectRequest {
  scope: ProjectScope;
  em: EntityManager;
  principal: Principal;
}

/**
 * A plain-express route under `/{projectId}` (files, imports and exports: bodies that stream,
 * which procedures cannot take). Same model as the procedures: the credential (401), the right
 * on the project (403/404), then `work`. Every failure is the error body (docs/reliability.md#errors); what is left of a
 * request body is read and dropped so that the answer arrives, on a connection not used again
 * (the client may still be sending). A failure after the headers went out can only cut the
 * response short.
 */
export const projectRoute =
  (deps: AppDeps, level: ProjectAccessLevel, work: (req: Request, res: Response, request: ProjectRequest) => Promise<void>): RequestHandler =>
  async (req, res) => {
    try {
      const principal = await principalOf(deps.credentials, req, res);
      const em = deps.orm.em.fork();
      const scope = await authorizeProject(em, deps.projects, principal, req.headers, String(req.params.projectId), level);
      await work(req, res, { scope, em, principal });
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
