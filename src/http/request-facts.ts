import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { CredentialResolver } from '../auth/credentials.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../shared/ids.js';

/**
 * What the layers of one `/v1` or `/trpc` request learn about it, for the request log and the
 * operator metrics: the projects it names, who called, and the procedures it reached.
 */
export interface RequestFacts {
  /** `performance.now()` at arrival, for durations. */
  started: number;
  /** `Date.now()` at arrival, for the log's `createdAt`. */
  arrivedAt: number;
  projects: Set<string>;
  principal: Principal | null;
  /** tRPC procedure paths (`contents.get`); a tRPC batch reaches several. */
  procedures: string[];
}

const facts = new WeakMap<ServerResponse, RequestFacts>();

/** `/v1/{projectId}/...` and `/v1/workspaces/{workspaceId}/projects/{projectId}...` name a project. */
const WORKSPACE_PROJECT = /^\/v1\/workspaces\/[^/]+\/projects\/([^/?]+)/;

const FIRST_SEGMENT = /^\/v1\/([^/?]+)/;

function projectInPath(url: string): string | null {
  const nested = url.startsWith('/v1/workspaces/') ? WORKSPACE_PROJECT.exec(url)?.[1] : undefined;
  if (nested) return isUuid(nested) ? nested : null;
  const first = FIRST_SEGMENT.exec(url)?.[1];
  return first && isUuid(first) ? first : null;
}

/** Runs once a request is over (answered, or abandoned by the client), with what was learnt. */
export type RequestDone = (req: Request, res: Response, facts: RequestFacts) => void;

/**
 * Starts collecting facts about each request (mounted first on `/v1` and `/trpc`) and hands
 * them to every `done` when the response closes: one listener per request for all of them.
 */
export function trackRequests(done: RequestDone[]): RequestHandler {
  return (req, res, next) => {
    const state: RequestFacts = { started: performance.now(), arrivedAt: Date.now(), projects: new Set(), principal: null, procedures: [] };
    const fromPath = projectInPath(req.originalUrl);
    if (fromPath) state.projects.add(fromPath.toLowerCase());
    facts.set(res, state);
    res.once('close', () => {
      for (const observer of done) observer(req, res, state);
    });
    next();
  };
}

/** Records that the request addresses this project (procedures call it; tRPC names it in the input). */
export function noteProject(res: ServerResponse, projectId: unknown): void {
  if (typeof projectId === 'string' && isUuid(projectId)) facts.get(res)?.projects.add(projectId.toLowerCase());
}

/** Records the caller (the rate limiter resolves it for every request). */
export function notePrincipal(res: ServerResponse, principal: Principal | null): void {
  const state = facts.get(res);
  if (state) state.principal = principal;
}

/**
 * The caller of this request: the principal the rate limiter resolved moments ago, or, when it
 * found none (or the request did not pass it), the credential resolved again for the exact 401.
 */
export async function principalOf(credentials: CredentialResolver, req: IncomingMessage, res: ServerResponse): Promise<Principal> {
  return facts.get(res)?.principal ?? credentials.resolve(req.headers.authorization);
}

/** Records a procedure the request reached. */
export function noteProcedure(res: ServerResponse, path: string): void {
  facts.get(res)?.procedures.push(path);
}
