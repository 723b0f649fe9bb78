import type { ErrorCode } from '../errors/app-error.js';
import type { SpecificError } from './error-rules.js';

/*
 * The parts of every OpenAPI document Tabula serves (the `/v1` reference and the per-project
 * documents) that describe behaviour shared by all operations (docs/concepts.md#conventions, docs/reliability.md#errors): the error body, the
 * headers every response carries, and one error response object per status.
 */

const ERROR_CODES: ErrorCode[] = [
  'INVALID_JSON', 'INVALID_QUERY', 'BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND',
  'METHOD_NOT_ALLOWED', 'CONFLICT', 'INVALID_TRANSITION', 'PRECONDITION_FAILED', 'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR',
];

/** docs/reliability.md#errors: `{ "error": { code, message, details } }`, details for 422 (and an import's refused lines, 403). */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: ERROR_CODES },
        message: { type: 'string', description: 'For people; never a stack trace or SQL' },
        details: {
          type: ['array', 'null'],
          description: 'One entry per offending field for 422 (e.g. `data.title.fr`), per refused line for the 403 of an import (`line 3`); null otherwise',
          items: {
            type: 'object',
            required: ['field', 'message'],
            additionalProperties: false,
            properties: { field: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};

const header = (description: string, type: 'string' | 'integer' = 'string') => ({ description, schema: { type } });

/** Response headers, as `components.headers`. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': header('Echoed from the request when it sent a safe token of at most 128 characters, otherwise generated'),
  'RateLimit-Limit': header("The credential's burst size (RATE_LIMIT_BURST)", 'integer'),
  'RateLimit-Remaining': header('Requests left in the bucket', 'integer'),
  'RateLimit-Reset': header('Seconds until the bucket is full again', 'integer'),
  'Retry-After': header('Seconds to wait before retrying (at least 1)', 'integer'),
  Location: header('Path of the created resource, e.g. `/v1/{projectId}/tables/{id}`'),
  ETag: header('The row’s entity tag, `"<id>:<version>"` (a read with `version=draft`: `W/"<id>:<version>:draft"`): send it as `If-Match` to write only over this version; as `If-None-Match`, 304 while nothing the answer depends on changed'),
  'Cache-ETag': header('Strong entity tag of this answer, made from the change counters of what it depends on, the caller’s view and the URL: send it as `If-None-Match` for a 304 while it is current'),
  'Cache-Control': header('Read keys: `public, max-age=0, s-maxage=<CDN_MAX_AGE>` (a shared cache may keep the answer that long, purged on change); other callers: `private, no-cache` (docs/scaling-out.md#http-caches-and-purging)'),
  Vary: header('`Authorization, Origin` on answers a shared cache may keep: one object per credential and Origin'),
  'Surrogate-Key': header('Space-separated keys naming what the answer depends on (`p:<projectId> t:<tableId> l:<tableId> r:<rowId>`...), for purging shared caches by key'),
  'Cache-Tag': header('The same keys as `Surrogate-Key`, for CDNs that read this header'),
};

/** Conditional GETs (docs/scaling-out.md#http-caches-and-purging). */
export const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of an earlier answer: 304 with no body while it is still the current one.',
  schema: { type: 'string' },
};

/** The headers of a cacheable GET's success (and 304); `rowTag`: the row's own ETag (a read of one row). */
export const cacheHeaders = (rowTag: boolean) => ({
  ETag: { $ref: `#/components/headers/${rowTag ? 'ETag' : 'Cache-ETag'}` },
  ...Object.fromEntries((['Cache-Control', 'Vary', 'Surrogate-Key', 'Cache-Tag'] as const).map((name) => [name, { $ref: `#/components/headers/${name}` }])),
});

/** 304 to `If-None-Match` naming the current tag. */
export const notModifiedResponse = (rowTag: boolean) => ({
  description: 'Not Modified: `If-None-Match` names the current `ETag`; no body',
  headers: { ...commonHeaders(), ...cacheHeaders(rowTag) },
});

/** The request header of a write that must not overwrite someone else's (docs/contents.md#concurrent-edits). */
export const IF_MATCH_PARAMETER = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'Write only if the row is still at this version: the `ETag` of a read of it (`"<id>:<version>"`; `W/` and the draft tag accepted, `"<version>"` too). Otherwise 412 PRECONDITION_FAILED, nothing written, and `ETag` names the current version. Absent: the last write wins.',
  schema: { type: 'string' },
  example: '"0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a:3"',
};
export type HeaderName = keyof typeof RESPONSE_HEADERS;

const headerRefs = (...names: HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Every `/v1` response carries the request id and the rate-limit state (docs/concepts.md#conventions, docs/concepts.md#rate-limits). */
export const commonHeaders = (...extra: HeaderName[]) =>
  headerRefs('X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', ...extra);

/** The generic meaning of each error status, with the codes it carries (docs/reliability.md#errors) and an example. */
const ERRORS: Record<string, { description: string; code: ErrorCode; message: string }> = {
  '400': { description: 'Malformed input: `BAD_REQUEST`, `INVALID_JSON` or `INVALID_QUERY`; the message names the field', code: 'BAD_REQUEST', message: 'Invalid request: name: Too small: expected string to have >=1 characters' },
  '401': { description: '`UNAUTHORIZED`: no `Authorization: Bearer` header, or an unknown, deleted, deactivated or expired token or key', code: 'UNAUTHORIZED', message: 'Missing or invalid credentials' },
  '403': { description: '`FORBIDDEN`: the credential lacks the right (role, read-only key, key of another project, host not allowed, API key on an account endpoint)', code: 'FORBIDDEN', message: 'This key is read-only' },
  '404': { description: '`NOT_FOUND`: an id or key in the path names nothing (or something deleted)', code: 'NOT_FOUND', message: 'Table not found' },
  '409': { description: '`CONFLICT`: a unique value is taken, or the change conflicts with the current state', code: 'CONFLICT', message: 'key is already used by another table of this project' },
  '412': {
    description: '`PRECONDITION_FAILED`: the row is no longer at the version `If-Match` (or `ifVersion`) names; nothing was written, `ETag` is the current one',
    code: 'PRECONDITION_FAILED',
    message: 'The row has changed: it is at version 4 now. Read it again (ETag "0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a:4") and apply your change to that version',
  },
  '413': { description: '`PAYLOAD_TOO_LARGE`: the body exceeds BODY_MAX_BYTES (files: FILES_MAX_BYTES)', code: 'PAYLOAD_TOO_LARGE', message: 'Request body exceeds 1048576 bytes' },
  '415': { description: '`UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json`', code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' },
  '422': { description: '`VALIDATION_ERROR`: well-formed but invalid; `details` lists every offending field', code: 'VALIDATION_ERROR', message: 'Validation failed: data.title' },
  '429': { description: '`RATE_LIMITED`: the credential (or client IP) exceeded its rate; see `Retry-After`', code: 'RATE_LIMITED', message: 'Rate limit exceeded; retry in 1 s' },
  '500': { description: '`INTERNAL_ERROR`: a server fault; the message is generic, `X-Request-Id` identifies the request in the logs', code: 'INTERNAL_ERROR', message: 'Internal server error' },
  '503': { description: '`SERVICE_UNAVAILABLE`: the database is unreachable; retry shortly', code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable; retry shortly' },
};

/**
 * The response object of an error status. `specific` replaces the generic description when the
 * operation has a more precise reason (e.g. which unique value a 409 is about).
 */
export function errorResponse(status: string, specific?: SpecificError) {
  const generic = ERRORS[status];
  if (!generic) throw new Error(`no error response defined for status ${status}`);
  const code = specific?.code ?? generic.code;
  const message = specific?.message ?? generic.message;
  const details = status === '422' ? (specific?.details ?? [{ field: 'data.title', message: 'is required' }]) : null;
  return {
    description: specific?.description ?? generic.description,
    headers: commonHeaders(...(status === '429' ? (['Retry-After'] as HeaderName[]) : status === '412' ? (['ETag'] as HeaderName[]) : [])),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        example: { error: { code, message, details } },
      },
    },
  };
}
