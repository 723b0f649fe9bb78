import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { AppDeps } from '../app-deps.js';
import { AppError, badRequest } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import { createContextFactory, type Context } from '../trpc/context.js';
import type { AppRouter } from '../trpc/router.js';
import { deferBodyError } from './deferred-body-error.js';
import { allowedMethods, type RouteEntry } from './route-index.js';
import { sendError } from './send-error.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

const mediaType = (req: IncomingMessage) => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/**
 * Reads JSON bodies for `/v1`. Failures (415, 413, 400 INVALID_JSON, a body that is not an
 * object) are deferred to the procedure so that 401/403/404 still win (SPEC §3 order).
 */
function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false, type: () => true });
  return (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) return next();
    if (!hasBody(req)) {
      // No body at all (e.g. an action without options): an empty object, whatever the type says.
      req.headers['content-type'] = 'application/json';
      req.body = {};
      return next();
    }
    // trpc-to-openapi refuses anything but application/json itself, before authentication.
    const given = mediaType(req);
    req.headers['content-type'] = 'application/json';
    if (given !== 'application/json') {
      deferBodyError(req, new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
      req.resume();
      return next();
    }
    parse(req, res, (error?: unknown) => {
      if (error) {
        const type = (error as { type?: string }).type;
        if (type === 'entity.too.large') {
          deferBodyError(req, new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`));
        } else if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
          deferBodyError(req, new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported body encoding or charset'));
        } else {
          deferBodyError(req, new AppError(400, 'INVALID_JSON', 'Request body is not valid JSON'));
        }
        req.resume();
      } else if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        deferBodyError(req, badRequest('Request body must be a JSON object'));
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

export function createV1Handlers(deps: AppDeps, appRouter: AppRouter, routes: RouteEntry[]): RequestHandler[] {
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

  return [jsonBody(deps.config.BODY_MAX_BYTES), serve, unmatched as (req: Request, res: Response, next: NextFunction) => void];
}
