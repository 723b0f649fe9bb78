import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { AppDeps } from '../app-deps.js';
import { badRequest, invalidJson, methodNotAllowed, noRoute, payloadTooLarge, unsupportedMediaType } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import { createContextFactory } from '../trpc/context.js';
import type { AppRouter } from '../trpc/router.js';
import { describeJsonProblem, findJsonProblem } from '../shared/json-guard.js';
import { deferBodyError } from './deferred-body-error.js';
import { mediaType, mediaTypeCharset } from './media-type.js';
import { allowedMethods, type RouteEntry } from './route-index.js';
import { sendError } from './send-error.js';
import { viaAdapter } from './v1-adapter.js';
import { v1Dispatch } from './v1-dispatch.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are refused rather than silently replaced by
 * U+FFFD. An empty body is no JSON text either, where body-parser would make it `{}`.
 */
const NOT_UTF8 = 'tabula.body.not-utf8';
const EMPTY = 'tabula.body.empty';
const checkBytes = (_req: IncomingMessage, _res: ServerResponse, body: Buffer) => {
  if (body.length === 0) throw Object.assign(new Error('body is empty'), { reason: EMPTY });
  if (!isUtf8(body)) throw Object.assign(new Error('body is not UTF-8'), { reason: NOT_UTF8 });
};

const EMPTY_JSON_MESSAGE = 'Request body is empty, which is not JSON; send {} for no fields, or no Content-Type and no body';

/**
 * Reads JSON bodies for `/v1`. Failures (415, 413, 400 INVALID_JSON, a body that is not an
 * object, a value PostgreSQL cannot store) are deferred to the procedure so that 401/403/404
 * still win (SPEC §3 order).
 *
 * A request with neither body nor Content-Type (an action without options: `POST .../rotate`)
 * is an empty object. One that names a type but sends nothing is judged as that type: an empty
 * `application/json` body is not JSON (400 INVALID_JSON), any other type is 415.
 */
function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false, type: () => true, verify: checkBytes });
  return (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) return next();
    const given = mediaType(req);
    if (!hasBody(req) && given === '') {
      req.headers['content-type'] = 'application/json';
      req.body = {};
      return next();
    }
    const givenCharset = mediaTypeCharset(req);
    if (given !== 'application/json' || (givenCharset !== null && givenCharset !== 'utf-8' && givenCharset !== 'utf8')) {
      req.headers['content-type'] = 'application/json';
      const message = given === 'application/json' ? 'JSON bodies must be UTF-8' : 'Content-Type must be application/json';
      deferBodyError(req, unsupportedMediaType(message));
      req.resume();
      return next();
    }
    if (!hasBody(req)) {
      req.headers['content-type'] = 'application/json';
      deferBodyError(req, invalidJson(EMPTY_JSON_MESSAGE));
      return next();
    }
    parse(req, res, (error?: unknown) => {
      // trpc-to-openapi refuses anything but application/json itself, before authentication.
      req.headers['content-type'] = 'application/json';
      if (error) {
        const { type, reason } = error as { type?: string; reason?: string };
        if (type === 'entity.too.large') {
          deferBodyError(req, payloadTooLarge(`Request body exceeds ${limit} bytes`));
        } else if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
          deferBodyError(req, unsupportedMediaType('Unsupported body encoding or charset'));
        } else if (reason === EMPTY) {
          deferBodyError(req, invalidJson(EMPTY_JSON_MESSAGE));
        } else if (reason === NOT_UTF8) {
          deferBodyError(req, invalidJson('Request body is not valid UTF-8'));
        } else {
          deferBodyError(req, invalidJson('Request body is not valid JSON'));
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
 * The `/v1` face: bodies are read (and their failures deferred), then each request goes straight
 * to its procedure (v1-dispatch.ts). `direct: false` serves them through trpc-to-openapi's own
 * adapter instead, which is the reference the dispatcher is tested against.
 */
export function createV1Handlers(deps: AppDeps, appRouter: AppRouter, routes: RouteEntry[], { direct = true } = {}): RequestHandler[] {
  const createContext = createContextFactory(deps);
  const dispatch = direct ? v1Dispatch(deps, appRouter, createContext) : viaAdapter(deps, appRouter, createContext);
  return [jsonBody(deps.config.BODY_MAX_BYTES), dispatch, unmatched(routes) as (req: Request, res: Response, next: NextFunction) => void];
}

/** 405 with Allow for a known path and another method, 404 otherwise. */
const unmatched = (routes: RouteEntry[]) => (req: Request, res: Response) => {
  const allowed = allowedMethods(routes, req.path);
  if (allowed.length > 0) {
    sendError(res, describeError(methodNotAllowed(req.method, allowed)));
    return;
  }
  sendError(res, describeError(noRoute(req.method, `/v1${req.path}`)));
};
