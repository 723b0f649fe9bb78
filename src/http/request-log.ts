import type { RequestLogBuffer } from '../modules/logs/log-buffer.js';
import { redactCredentials } from '../shared/log-safety.js';
import { clientIp } from './client-ip.js';
import { answeredStatus, wasStream, type RequestDone } from './request-tracking.js';

/** Longest path and user agent kept; a log row is not the place for a 1 MB query string. */
const MAX_PATH = 2048;
const MAX_USER_AGENT = 512;

/** What a client wrote, as it may be logged: without credentials (log-safety.ts), at most `max` characters. */
const loggable = (text: string, max: number) => redactCredentials(text).slice(0, max);

/**
 * docs/logs-and-metrics.md#request-logs: every `/v1`, `/trpc` and `/mcp` request that names a project is logged, once per project it
 * names (a tRPC batch may name several). Entries go to the in-memory buffer when the response is
 * done, with the status the client got (499: it left before any answer). No credential a client put in
 * the path, the agent or the request id is stored, whatever the path and the answer (a mistyped
 * stream URL with `?access_token=` was refused with 401, and its key then shown in the logs).
 */
export function logRequests(buffer: RequestLogBuffer): RequestDone {
  return (req, res, facts) => {
    if (facts.projects.size === 0) return;
    const { principal } = facts;
    // The same request, once per project it names.
    const request = {
      requestId: loggable(String(res.getHeader('x-request-id') ?? ''), MAX_USER_AGENT),
      method: req.method,
      // A `/mcp` request is logged under what it did: `/mcp:contents.list`.
      path: facts.mcp ? `/mcp:${facts.mcp.join(',')}` : loggable(req.originalUrl, MAX_PATH),
      status: answeredStatus(res),
      durationMs: Math.round((performance.now() - facts.started) * 100) / 100,
      apiKeyId: principal?.kind === 'apiKey' ? principal.apiKeyId : null,
      accountId: principal?.kind === 'account' ? principal.accountId : null,
      ip: clientIp(req),
      userAgent: req.headers['user-agent'] === undefined ? null : loggable(req.headers['user-agent'], MAX_USER_AGENT),
      createdAt: facts.arrivedAt,
      ...(wasStream(res) ? { stream: true as const } : {}),
      ...(req.headers['tabula-client'] === 'console' ? { console: true as const } : {}),
    };
    for (const projectId of facts.projects) buffer.push({ projectId, ...request });
  };
}
