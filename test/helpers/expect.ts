import { expect } from 'vitest';
import type { CallResult } from './api.js';

/** Assertions on the response shapes (docs/concepts.md#conventions, docs/reliability.md#errors), shared by every suite. */

export const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const TOKEN_SHAPE = /^tat_[A-Za-z0-9]{43}$/;

export interface ErrorBody {
  code: string;
  message: string;
  details: { field: string; message: string }[] | null;
}

/**
 * The error body (docs/reliability.md#errors): `{ error: { code, message, details } }` only, a non-empty message, details
 * `{ field, message }` entries for 422 and null otherwise, JSON, and an X-Request-Id.
 */
export function expectError(res: CallResult, status: number, code: string): ErrorBody {
  expect({ status: res.status, body: res.json }, res.text).toMatchObject({ status, body: { error: { code } } });
  expect(Object.keys(res.json)).toEqual(['error']);
  const error = res.json.error as ErrorBody;
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  if (status === 422) {
    expect(Array.isArray(error.details)).toBe(true);
    for (const d of error.details!) {
      expect(typeof d.field).toBe('string');
      expect(typeof d.message).toBe('string');
      expect(d.message.length).toBeGreaterThan(0);
    }
  } else expect(error.details).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  return error;
}

/** 400 BAD_REQUEST whose message names `field`. */
export function expectBadRequest(res: CallResult, field: string) {
  const error = expectError(res, 400, 'BAD_REQUEST');
  expect(error.message, `message must name ${field}`).toContain(field);
  return error;
}

export function expectStatus(res: CallResult, status: number) {
  expect(res.status, res.text).toBe(status);
  return res.json;
}

/** 201 with a Location under /v1 ending in the new id (exactly `/v1<collectionPath>/<id>` when given). */
export function expectCreated(res: CallResult, collectionPath?: string) {
  expect(res.status, res.text).toBe(201);
  expect(res.json.id).toMatch(UUID_SHAPE);
  const location = res.headers.get('location');
  if (collectionPath) expect(location).toBe(`/v1${collectionPath}/${res.json.id}`);
  else expect(location).toMatch(new RegExp(`/${res.json.id}$`));
  return res.json;
}

/** 204 with an empty body. */
export function expectNoContent(res: CallResult) {
  expect(res.status, res.text).toBe(204);
  expect(res.text).toBe('');
}
