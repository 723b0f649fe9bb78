import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { CredentialResolver } from '../auth/credentials.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../shared/ids.js';
import { newRequestFacts, type RequestFacts } from '../trpc/request-facts.js';

/*
 * Each `/v1` and `/trpc` request's facts (trpc/request-facts.ts), kept by its response from
 * arrival to close: the rate limiter notes the caller, the context of the procedures receives
 * the record (factsOf), and the request log and metrics read it at the end.
 */
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

/**
 * The status the client got: the response's, once its headers went out (a download or stream cut
 * short, a 408 to a stalled body), else 499 (the client left before any answer).
 */
export const answeredStatus = (res: ServerResponse): number => (res.headersSent ? res.statusCode : 499);

/**
 * Whether the request became an event stream (`GET /v1/{projectId}/events/stream`, the tRPC
 * subscription `events.subscribe`): its answer is `text/event-stream`. A stream lasts as long as
 * its client stays and ends when the client leaves; it is counted apart from requests
 * (docs/logs-and-metrics.md "Streams"). One refused before it started is a request: a refused
 * tRPC subscription is answered under the refusal's status, its error event in the body.
 */
export const wasStream = (res: ServerResponse): boolean =>
  res.headersSent && res.statusCode === 200 && String(res.getHeader('content-type') ?? '').startsWith('text/event-stream');

/** Runs once a request is over (answered, or abandoned by the client), with what was learnt. */
export type RequestDone = (req: Request, res: Response, facts: RequestFacts) => void;

/**
 * Starts collecting facts about each request (mounted first on `/v1` and `/trpc`) and hands
 * them to every `done` when the response closes: one listener per request for all of them.
 */
export function trackRequests(done: RequestDone[]): RequestHandler {
  return (req, res, next) => {
    const state = newRequestFacts();
    const fromPath = projectInPath(req.originalUrl);
    if (fromPath) state.projects.add(fromPath.toLowerCase());
    facts.set(res, state);
    res.once('close', () => {
      for (const observer of done) observer(req, res, state);
    });
    next();
  };
}

/** The request's facts; a fresh record, seen by no one, for a request that is not tracked. */
export const factsOf = (res: ServerResponse): RequestFacts => facts.get(res) ?? newRequestFacts();

/** Records the caller (the rate limiter resolves it for every request). */
export function notePrincipal(res: ServerResponse, principal: Principal | null): void {
  const state = facts.get(res);
  if (state) state.principal = principal;
}

/**
 * The caller of this request: the principal the rate limiter resolved moments ago, or, when it
 * found none (or the request did not pass it), the credential resolved again for the exact 401.
 */
export async function principalOf(credentials: CredentialResolver, req: { headers: { authorization?: string } }, res: ServerResponse): Promise<Principal> {
  return facts.get(res)?.principal ?? credentials.resolve(req.headers.authorization);
}
