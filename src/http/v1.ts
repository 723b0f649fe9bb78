import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { AppDeps } from '../app-deps.js';
import { AppError, badRequest } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import { createContextFactory, type Context } from '../trpc/context.js';
import type { AppRouter } from '../trpc/router.js';
import { describeJsonProblem, findJsonProblem } from '../shared/json-guard.js';
import { deferBodyError } from './deferred-body-error.js';
import { allowedMethods, type RouteEntry } from './route-index.js';
import { sendError } from './send-error.js';
import { v1Reads } from './v1-reads.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

const mediaType = (req: IncomingMessage) => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/** The `charset` parameter of the Content-Type, lower case; null when absent. */
const charset = (req: IncomingMessage) => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase() ?? null;

/** JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are refused rather than silently replaced by U+FFFD. */
const NOT_UTF8 = 'tabula.body.not-utf8';
const requireUtf8 = (_req: IncomingMessage, _res: ServerResponse, body: Buffer) => {
  if (!isUtf8(body)) throw Object.assign(new Error('body is not UTF-8'), { reason: NOT_UTF8 });
};

/**
 * Reads JSON bodies for `/v1`. Failures (415, 413, 400 INVALID_JSON, a body that is not an
 * object, a value PostgreSQL cannot store) are deferred to the procedure so that 401/403/404
 * still win (SPEC §3 order).
 */
function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false, type: () => true, verify: requireUtf8 });
  return (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) return next();
    if (!hasBody(req)) {
      // No body at all (e.g. an action without options): an empty object, whatever the type says.
      req.headers['content-type'] = 'application/json';
      req.body = {};
      return next();
    }
    const given = mediaType(req);
    const givenCharset = charset(req);
    if (given !== 'application/json' || (givenCharset !== null && givenCharset !== 'utf-8' && givenCharset !== 'utf8')) {
      req.headers['content-type'] = 'application/json';
      const message = given === 'application/json' ? 'JSON bodies must be UTF-8' : 'Content-Type must be application/json';
      deferBodyError(req, new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', message));
      req.resume();
      return next();
    }
    parse(req, res, (error?: unknown) => {
      // trpc-to-openapi refuses anything but application/json itself, before authentication.
      req.headers['content-type'] = 'application/json';
      if (error) {
        const { type, reason } = error as { type?: string; reason?: string };
        if (type === 'entity.too.large') {
          deferBodyError(req, new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`));
        } else if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
          deferBodyError(req, new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported body encoding or charset'));
        } else if (reason === NOT_UTF8) {
          deferBodyError(req, new AppError(400, 'INVALID_JSON', 'Request body is not valid UTF-8'));
        } else {
          deferBodyError(req, new AppError(400, 'INVALID_JSON', 'Request body is not valid JSON'));
        }
        req.resume();
      } else if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        deferBodyError(req, badRequest('Request body must be a JSON object'));
      } else {
        // Now, not in the procedure: the adapter re-serialises the body recursively before any
        // procedure runs, and a hostile depth overflowed its stack.
        const problem = findJsonProblem(req.body);
        if (problem) deferBodyError(req, badRequest(`Invalid request: ${describeJsonProblem(problem)}`));
      }
      next();
    });
  };
}

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
 * The `/v1` face: reads go straight to their procedure (v1-reads.ts), everything else through
 * trpc-to-openapi's adapter. `directReads: false` sends reads through the adapter too (the
 * equivalence test compares both).
 */
export function createV1Handlers(deps: AppDeps, appRouter: AppRouter, routes: RouteEntry[], { directReads = true } = {}): RequestHandler[] {
  const createContext = createContextFactory(deps);
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

  const serve: RequestHandler = (req, res, next) => {
    rewriteErrorBodies(res);
    handler(req, res, next).catch(next);
  };

  const unmatched = (req: Request, res: Response) => {
    const allowed = allowedMethods(routes, req.path);
    if (allowed.length > 0) {
      res.setHeader('Allow', allowed.join(', '));
      sendError(res, describeError(new AppError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allowed.join(', ')}`)));
      return;
    }
    sendError(res, describeError(new AppError(404, 'NOT_FOUND', `No route for ${req.method} /v1${req.path}`)));
  };

  const reads = directReads ? [v1Reads(deps, appRouter, createContext)] : [];
  return [...reads, jsonBody(deps.config.BODY_MAX_BYTES), serve, unmatched as (req: Request, res: Response, next: NextFunction) => void];
}
