import { expect } from 'vitest';
import type { CallResult, TestApi } from '../helpers/api.js';
import { expectError, expectStatus } from '../helpers/expect.js';

/** Helpers of the schema-as-code tests (docs/environments.md). */

export interface SnapshotColumn {
  name: string;
  label: string;
  type: string;
  settings: Record<string, unknown>;
  renamedFrom?: string;
}
export interface SnapshotTable {
  key: string;
  name: string;
  description: string;
  defaultStatus: string;
  settings?: { display?: string };
  columns: SnapshotColumn[];
}
export interface Snapshot {
  format: 1;
  locales: string[];
  defaultLocale: string;
  tables: SnapshotTable[];
  roles: { name: string; description: string; rules: unknown[] }[];
}
export interface Change {
  op: string;
  table?: string;
  column?: string;
  role?: string;
  from?: Record<string, unknown>;
  to?: Record<string, unknown>;
  destructive: boolean;
  rows?: number;
}

export const schemaPath = (projectId: string, action?: 'diff' | 'apply') => `/v1/${projectId}/schema${action ? `/${action}` : ''}`;

export async function pull(t: TestApi, projectId: string, token?: string): Promise<{ snapshot: Snapshot; text: string }> {
  const res = await t.call('GET', schemaPath(projectId), { token });
  const snapshot = expectStatus(res, 200) as Snapshot;
  return { snapshot, text: res.text };
}

export const diff = (t: TestApi, projectId: string, snapshot: unknown) => t.call('POST', schemaPath(projectId, 'diff'), { body: { snapshot } });
export const apply = (t: TestApi, projectId: string, snapshot: unknown, options: { allowDestructive?: boolean; dryRun?: boolean } = {}) =>
  t.call('POST', schemaPath(projectId, 'apply'), { body: { snapshot, ...options } });

export function changesOf(res: CallResult): Change[] {
  const body = expectStatus(res, 200) as { changes: Change[] };
  expect(Object.keys(body)).toEqual(['changes']);
  return body.changes;
}

/** A 422 whose details name `field` and whose message for it names every row of `ids`. */
export function expectRows422(res: CallResult, field: string, ids: string[]) {
  const error = expectError(res, 422, 'VALIDATION_ERROR');
  const detail = error.details!.find((d) => d.field === field);
  expect(detail, `a detail for ${field} in ${JSON.stringify(error.details)}`).toBeDefined();
  for (const id of ids) expect(detail!.message).toContain(id);
  return error;
}

/** A deep copy to edit. */
export const copy = <T>(value: T): T => structuredClone(value);

export const table = (key: string, columns: SnapshotColumn[], extra: Partial<SnapshotTable> = {}): SnapshotTable => ({
  key,
  name: extra.name ?? key,
  description: extra.description ?? '',
  defaultStatus: extra.defaultStatus ?? 'PUBLISHED',
  columns,
});
export const column = (name: string, type: string, settings: Record<string, unknown> = {}, label = name): SnapshotColumn => ({ name, label, type, settings });
