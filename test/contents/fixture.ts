import { expect } from 'vitest';
import type { CallResult, TestApi } from '../helpers/api.js';
import { expectCreated, expectError, expectStatus } from '../helpers/expect.js';
export { UUID_SHAPE, expectBadRequest, expectCreated, expectError, expectNoContent, expectStatus } from '../helpers/expect.js';

/** Shared helpers of the test/contents suite (tables, columns, contents). */

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
/** A well-formed UUID that names nothing. */
export const GHOST = '0190b0a0-0000-7000-8000-00000000c0de';

let counter = 0;
/** A fresh lower-case token usable as a table key. */
export const uniq = (label = 't') => `${label}_${Date.now().toString(36)}_${++counter}`;

/** 422 VALIDATION_ERROR whose details name exactly `fields` (one entry each). */
export function expectValidation(res: CallResult, fields: string[]) {
  const error = expectError(res, 422, 'VALIDATION_ERROR');
  expect(error.details!.map((d) => d.field).sort()).toEqual([...fields].sort());
  return error;
}

/** 409 CONFLICT whose message names `field` (e.g. `data.sku`). */
export function expectConflict(res: CallResult, field: string, code = 'CONFLICT') {
  const error = expectError(res, 409, code);
  expect(error.message, `message must name ${field}`).toContain(field);
  return error;
}

export interface World {
  t: TestApi;
  workspaceId: string;
  projectId: string;
  /** Secrets of a read and a read_write key of the project. */
  readKey: string;
  writeKey: string;
}

/** A workspace, a project with locales en (default) and fr, and a read and a read_write key. */
export async function buildWorld(t: TestApi): Promise<World> {
  const ws = await t.call('POST', '/v1/workspaces', { body: { name: 'Contents' } });
  expect(ws.status, ws.text).toBe(201);
  const pr = await t.call('POST', `/v1/workspaces/${ws.json.id}/projects`, {
    body: { name: 'Site', locales: ['en', 'fr'], defaultLocale: 'en' },
  });
  expect(pr.status, pr.text).toBe(201);
  const projectId = pr.json.id as string;
  const key = async (permission: 'read' | 'read_write') => {
    const res = await t.call('POST', `/v1/${projectId}/api-keys`, { body: { name: `k-${permission}`, permission } });
    expect(res.status, res.text).toBe(201);
    return res.json.key as string;
  };
  return { t, workspaceId: ws.json.id, projectId, readKey: await key('read'), writeKey: await key('read_write') };
}

/** A custom role with `rules` (project ADMIN) and an API key holding it (`roleId`); 201s asserted. */
export async function roleKey(w: World, rules: unknown[], name = uniq('role')): Promise<{ key: string; id: string; roleId: string }> {
  const role = expectCreated(await w.t.call('POST', `/v1/${w.projectId}/roles`, { body: { name, rules } }));
  const key = expectCreated(await w.t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name, roleId: role.id } }));
  return { key: key.key as string, id: key.id as string, roleId: role.id as string };
}

export const tablesPath = (w: World, table?: string) => `/v1/${w.projectId}/tables${table ? `/${table}` : ''}`;
export const columnsPath = (w: World, table: string, column?: string) =>
  `${tablesPath(w, table)}/columns${column ? `/${column}` : ''}`;
export const contentsPath = (w: World, table: string, id?: string) =>
  `${tablesPath(w, table)}/contents${id ? `/${encodeURIComponent(id)}` : ''}`;

export interface ColumnSpec {
  name: string;
  type: string;
  settings?: Record<string, unknown>;
  label?: string;
}

export interface Table {
  id: string;
  key: string;
  defaultStatus: string;
  columns: Record<string, { id: string; name: string; type: string; settings: Record<string, unknown>; position: number }>;
}

/** Creates a table (account token) with its columns; asserts every 201. */
export async function createTable(w: World, columns: ColumnSpec[] = [], extra: Record<string, unknown> = {}): Promise<Table> {
  const key = uniq('t');
  const table = expectCreated(await w.t.call('POST', tablesPath(w), { body: { key, name: `Table ${key}`, ...extra } }), `/${w.projectId}/tables`);
  table.columns = {};
  for (const column of columns) table.columns[column.name] = await addColumn(w, table.id, column);
  return table as Table;
}

export async function addColumn(w: World, table: string, column: ColumnSpec) {
  const res = await w.t.call('POST', columnsPath(w, table), { body: column });
  return expectCreated(res);
}

/** POST contents with the read_write key (unless another token is given); the raw response. */
export const postRow = (w: World, table: string, body: Record<string, unknown>, token = w.writeKey) =>
  w.t.call('POST', contentsPath(w, table), { token, body });

export const putRow = (w: World, table: string, id: string, body: Record<string, unknown>, token = w.writeKey) =>
  w.t.call('PUT', contentsPath(w, table, id), { token, body });

export const getRow = (w: World, table: string, id: string, token = w.writeKey, query = '') =>
  w.t.call('GET', contentsPath(w, table, id) + query, { token });

/** Creates one row (201 asserted) and returns the body. */
export async function createRow(w: World, table: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return expectCreated(await postRow(w, table, { data, ...extra }), `/${w.projectId}/tables/${table}/contents`);
}

/** GET a list with a query string; asserts the list envelope (docs/concepts.md#conventions) and returns the body. */
export async function list(w: World, table: string, token: string, query: Record<string, unknown> = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) params.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const qs = params.size > 0 ? `?${params}` : '';
  const res = await w.t.call('GET', contentsPath(w, table) + qs, { token });
  const body = expectStatus(res, 200);
  expect(Array.isArray(body.list)).toBe(true);
  expect(Object.keys(body.pagination)).toEqual(expect.arrayContaining(['page', 'size', 'total', 'pages', 'hasNext']));
  if (body.pagination.total !== null) expect(body.pagination.pages).toBe(Math.ceil(body.pagination.total / body.pagination.size));
  return body as { list: { id: string; status?: string; data?: Record<string, unknown> }[]; pagination: { page: number; size: number; total: number; pages: number; hasNext: boolean } };
}
