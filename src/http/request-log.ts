import type { RequestLogBuffer } from '../modules/logs/log-buffer.js';
import { clientIp } from './client-ip.js';
import type { RequestDone } from './request-facts.js';

/** Longest path and user agent kept; a log row is not the place for a 1 MB query string. */
const MAX_PATH = 2048;
const MAX_USER_AGENT = 512;

/**
 * SPEC §9: every `/v1` and `/trpc` request that names a project is logged, once per project it
 * names (a tRPC batch may name several). Entries go to the in-memory buffer when the response is
 * done; a request the client abandoned is logged with status 499.
 */
export function logRequests(buffer: RequestLogBuffer): RequestDone {
  return (req, res, facts) => {
    if (facts.projects.size === 0) return;
    const { principal } = facts;
    // The same request, once per project it names.
    const request = {
      requestId: String(res.getHeader('x-request-id') ?? ''),
      method: req.method,
      path: req.originalUrl.slice(0, MAX_PATH),
      status: res.writableFinished ? res.statusCode : 499,
      durationMs: Math.round((performance.now() - facts.started) * 100) / 100,
      apiKeyId: principal?.kind === 'apiKey' ? principal.apiKeyId : null,
      accountId: principal?.kind === 'account' ? principal.accountId : null,
      ip: clientIp(req),
      userAgent: req.headers['user-agent']?.slice(0, MAX_USER_AGENT) ?? null,
      createdAt: facts.arrivedAt,
    };
    for (const projectId of facts.projects) buffer.push({ projectId, ...request });
  };
}
