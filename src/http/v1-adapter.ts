import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { AppDeps } from '../app-deps.js';
import { describeError } from '../errors/describe.js';
import type { Context } from '../trpc/context.js';
import type { AppRouter } from '../trpc/router.js';

/**
 * trpc-to-openapi writes its own error shape; this rewrites it into the SPEC §3 body, which the
 * error formatter has already put under `data.error`. It also sets Content-Length.
 */
function rewriteErrorBodies(res: ServerResponse): void {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    if (res.statusCode === 204) {
      res.removeHeader('Content-Type');
      return end();
    }
    if (res.statusCode >= 400 && typeof chunk === 'string') {
      try {
        const parsed = JSON.parse(chunk) as { data?: { error?: unknown } };
        if (parsed.data?.error) chunk = JSON.stringify({ error: parsed.data.error });
      } catch {
        // not JSON: leave it
      }
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
    }
    // A known length spares the chunked encoding (and a larger write) on every response.
    if (typeof chunk === 'string' && !res.headersSent) res.setHeader('Content-Length', Buffer.byteLength(chunk));
    return end(chunk);
  }) as ServerResponse['end'];
}

/**
 * `/v1` through trpc-to-openapi's own adapter: the reference that the direct dispatcher
 * (v1-dispatch.ts) is tested against, answer for answer.
 */
export function viaAdapter(deps: AppDeps, appRouter: AppRouter, createContext: (opts: { req: IncomingMessage; res: ServerResponse }) => Context): RequestHandler {
  const handler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req, res }: { req: IncomingMessage; res: ServerResponse }) => createContext({ req, res }),
    maxBodySize: deps.config.BODY_MAX_BYTES,
    responseMeta: ({ ctx, errors, type }: { ctx?: Context; errors: unknown[]; type: string }) => {
      if (errors.length > 0) {
        const described = describeError(errors[0], type);
        return { status: described.status, headers: described.headers };
      }
      return { status: ctx?.response.status ?? 200, headers: ctx?.response.headers ?? {} };
    },
    onError: ({ error, type, path, ctx }: { error: unknown; type: string; path?: string; ctx?: Context }) => {
      const described = describeError(error, type);
      if (described.internal) {
        deps.logger.error({ err: error, path, requestId: ctx?.requestId }, 'request failed');
      }
    },
  } as Parameters<typeof createOpenApiNodeHttpHandler>[0]);

  return (req, res, next) => {
    rewriteErrorBodies(res);
    handler(req, res, next).catch(next);
  };
}
