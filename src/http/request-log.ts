import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Principal } from '../auth/principal.js';
import type { RequestLogBuffer } from '../modules/logs/log-buffer.js';
import { isUuid, uuidv7 } from '../shared/ids.js';
import { clientIp } from './client-ip.js';

/** What one request has told the logger so far: the projects it named, and who called. */
interface RequestLogState {
  projects: Set<string>;
  principal: Principal | null;
}

const states = new WeakMap<ServerResponse, RequestLogState>();

/** Longest path and user agent kept; a log row is not the place for a 1 MB query string. */
const MAX_PATH = 2048;
const MAX_USER_AGENT = 512;

/** `/v1/{projectId}/...` and `/v1/workspaces/{workspaceId}/projects/{projectId}...` name a project. */
const WORKSPACE_PROJECT = /^\/v1\/workspaces\/[^/]+\/projects\/([^/?]+)/;

function projectInPath(url: string): string | null {
  const nested = WORKSPACE_PROJECT.exec(url)?.[1];
  if (nested) return isUuid(nested) ? nested : null;
  const first = /^\/v1\/([^/?]+)/.exec(url)?.[1];
  return first && isUuid(first) ? first : null;
}

/** Records that the request addresses this project (procedures call it; tRPC names it in the input). */
export function noteProject(res: ServerResponse, projectId: unknown): void {
  if (typeof projectId === 'string' && isUuid(projectId)) states.get(res)?.projects.add(projectId.toLowerCase());
}

/** Records the caller (the rate limiter resolves it for every request). */
export function notePrincipal(res: ServerResponse, principal: Principal | null): void {
  const state = states.get(res);
  if (state) state.principal = principal;
}

/**
 * SPEC §9: every `/v1` and `/trpc` request that names a project is logged, once per project it
 * names (a tRPC batch may name several). Entries go to the in-memory buffer when the response is
 * done; a request the client abandoned is logged with status 499.
 */
export function captureRequestLogs(buffer: RequestLogBuffer): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const createdAt = new Date().toISOString();
    const state: RequestLogState = { projects: new Set(), principal: null };
    const fromPath = projectInPath(req.originalUrl);
    if (fromPath) state.projects.add(fromPath.toLowerCase());
    states.set(res, state);
    res.once('close', () => {
      if (state.projects.size === 0) return;
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const principal = state.principal;
      for (const projectId of state.projects) {
        buffer.push({
          id: uuidv7(),
          projectId,
          requestId: String(res.getHeader('x-request-id') ?? ''),
          method: req.method,
          path: req.originalUrl.slice(0, MAX_PATH),
          status: res.writableFinished ? res.statusCode : 499,
          durationMs,
          apiKeyId: principal?.kind === 'apiKey' ? principal.apiKeyId : null,
          accountId: principal?.kind === 'account' ? principal.accountId : null,
          ip: clientIp(req),
          userAgent: req.get('user-agent')?.slice(0, MAX_USER_AGENT) ?? null,
          createdAt,
        });
      }
    });
    next();
  };
}
