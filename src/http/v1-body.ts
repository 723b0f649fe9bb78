import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import { badRequest, invalidJson, payloadTooLarge, unsupportedMediaType, type AppError } from '../errors/app-error.js';
import { describeJsonProblem, findJsonProblem } from '../shared/json-guard.js';
import { mediaType, mediaTypeCharset } from './media-type.js';

/** What reading a `/v1` JSON body gave: the object, or the reason it cannot be used. */
export type BodyRead = { body: Record<string, unknown>; error?: undefined } | { body?: undefined; error: AppError };

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are refused rather than silently replaced by
 * U+FFFD. An empty body is no JSON text either, where body-parser would make it `{}`.
 */
const NOT_UTF8 = 'tabula.body.not-utf8';
const EMPTY = 'tabula.body.empty';
const problemOfBytes = (body: Buffer) => (body.length === 0 ? EMPTY : isUtf8(body) ? null : NOT_UTF8);
const checkBytes = (_req: IncomingMessage, _res: ServerResponse, body: Buffer) => {
  const reason = problemOfBytes(body);
  if (reason) throw Object.assign(new Error(reason), { reason });
};

const EMPTY_JSON_MESSAGE = 'Request body is empty, which is not JSON; send {} for no fields, or no Content-Type and no body';

/** body-parser's failure as the error of docs/reliability.md#errors. */
function parseFailure(error: { type?: string; reason?: string }, limit: number): AppError {
  if (error.type === 'entity.too.large') return payloadTooLarge(`Request body exceeds ${limit} bytes`);
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') return unsupportedMediaType('Unsupported body encoding or charset');
  if (error.reason === EMPTY) return invalidJson(EMPTY_JSON_MESSAGE);
  if (error.reason === NOT_UTF8) return invalidJson('Request body is not valid UTF-8');
  return invalidJson('Request body is not valid JSON');
}

/** The parsed value as a procedure's input, or why it cannot be one. */
function judge(value: unknown): BodyRead {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: badRequest('Request body must be a JSON object') };
  const problem = findJsonProblem(value);
  if (problem) return { error: badRequest(`Invalid request: ${describeJsonProblem(problem)}`) };
  return { body: value as Record<string, unknown> };
}

/**
 * What body-parser does (limit, length, UTF-8, JSON, the same errors) for a body sent as it is,
 * the usual one, without its stream plumbing and charset decoder: a tenth of the CPU of a small
 * write's request. Compressed bodies (Content-Encoding) still go through body-parser, which
 * inflates them.
 */
function readPlain(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
  if (declared !== null && declared > limit) {
    req.resume();
    return Promise.resolve({ error: parseFailure({ type: 'entity.too.large' }, limit) });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (read: BodyRead) => {
      req.off('data', onData).off('end', onEnd).off('error', onFailure).off('aborted', onFailure).off('close', onFailure);
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        // The rest is read and dropped, so that the answer arrives.
        done({ error: parseFailure({ type: 'entity.too.large' }, limit) });
        req.resume();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (declared !== null && received !== declared) return done({ error: parseFailure({ type: 'request.size.invalid' }, limit) });
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      const reason = problemOfBytes(bytes);
      if (reason) return done({ error: parseFailure({ reason }, limit) });
      let value: unknown;
      try {
        // Without a byte order mark, as body-parser's decoder reads it.
        value = JSON.parse(bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0));
      } catch {
        return done({ error: parseFailure({}, limit) });
      }
      done(judge(value));
    };
    // Gone before its end (a client that hung up): nobody reads the answer, but the request ends.
    const onFailure = () => done({ error: parseFailure({ type: 'request.aborted' }, limit) });
    req.on('data', onData).on('end', onEnd).on('error', onFailure).on('aborted', onFailure).on('close', onFailure);
  });
}

/**
 * Reads the JSON body of a `/v1` write. A failure (415, 413, 400 INVALID_JSON, a body that is
 * not an object, a value PostgreSQL cannot store) is returned, not answered: the caller hands it
 * to the procedure, which raises it after 401/403/404 (the order of docs/reliability.md#errors). Whatever of a refused
 * body is still coming is read and dropped, so that the answer arrives.
 *
 * A request with neither body nor Content-Type (an action without options: `POST .../rotate`)
 * is an empty object. One that names a type but sends nothing is judged as that type: an empty
 * `application/json` body is not JSON (400 INVALID_JSON), any other type is 415.
 */
export function jsonBodyReader(limit: number): (req: Request, res: Response) => Promise<BodyRead> {
  const parse = express.json({ limit, strict: false, type: () => true, verify: checkBytes });
  return (req, res) => {
    const given = mediaType(req);
    if (!hasBody(req) && given === '') return Promise.resolve({ body: {} });
    const charset = mediaTypeCharset(req);
    if (given !== 'application/json' || (charset !== null && charset !== 'utf-8' && charset !== 'utf8')) {
      req.resume();
      const message = given === 'application/json' ? 'JSON bodies must be UTF-8' : 'Content-Type must be application/json';
      return Promise.resolve({ error: unsupportedMediaType(message) });
    }
    if (!hasBody(req)) return Promise.resolve({ error: invalidJson(EMPTY_JSON_MESSAGE) });
    const encoding = req.headers['content-encoding'];
    if (encoding === undefined || encoding === 'identity') return readPlain(req, limit);
    return new Promise((resolve) => {
      parse(req, res, (error?: unknown) => {
        if (!error) return resolve(judge(req.body));
        req.resume();
        resolve({ error: parseFailure(error as { type?: string; reason?: string }, limit) });
      });
    });
  };
}
