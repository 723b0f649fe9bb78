import { isDeepStrictEqual } from 'node:util';
import { rulesOn, viewOf, whereHolds, type Holder } from './policy.js';
import { SCHEMA, type Row, type Rule, type Status, type World } from './schema.js';

/*
 * What a write through a role answers, per the model (docs/roles.md#rules): one rule granting the
 * action must hold the row before and after in its `where` and name every changed column in
 * `fields.write` (`title` covers `title.fr`); publishing, scheduling or unpublishing needs a
 * `publish` rule holding the row too. A row the role does not read is 404 to an update.
 */

export type WriteOp =
  | { kind: 'create'; data: Record<string, unknown>; status: Status }
  | { kind: 'update'; id: string; data: Record<string, unknown>; status?: Status; publishAt?: string };

export interface WriteAnswer {
  status: number;
  /** The row's status and data after an allowed write. */
  after?: { status: Status; data: Record<string, unknown> };
}

const WRITE_ACTIONS = ['create', 'update', 'delete', 'publish'];

/** `PUT` merges `data`: present columns replaced (a localized one per locale), `null` clears. */
export function merged(before: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const out = { ...before };
  for (const [column, value] of Object.entries(changes)) {
    if (value === null) delete out[column];
    else if (SCHEMA.posts[column] === 'ltext') {
      const locales = { ...((out[column] as Record<string, unknown> | undefined) ?? {}) };
      for (const [locale, text] of Object.entries(value as Record<string, unknown>)) {
        if (text === null) delete locales[locale];
        else locales[locale] = text;
      }
      out[column] = locales;
    } else out[column] = value;
  }
  return out;
}

/** The columns whose values differ (`title.fr` for one locale of the localized title). */
export function changedColumns(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(SCHEMA.posts).flatMap((column) => {
    const [a, b] = [before[column] ?? null, after[column] ?? null];
    if (isDeepStrictEqual(a, b)) return [];
    if (SCHEMA.posts[column] !== 'ltext') return [column];
    const [x, y] = [(a ?? {}) as Record<string, unknown>, (b ?? {}) as Record<string, unknown>];
    return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((l) => !isDeepStrictEqual(x[l] ?? null, y[l] ?? null)).map((l) => `${column}.${l}`);
  });
}

const covers = (rule: Rule, written: string) => !rule.fields?.write || rule.fields.write.includes(written) || rule.fields.write.includes(written.split('.')[0]);

/** Whether a change of status publishes, schedules or unpublishes. */
const publishes = (before: Status | null, after: Status) => after !== before && (after === 'PUBLISHED' || after === 'SCHEDULED' || before === 'PUBLISHED');

export function writeAnswer(holder: Holder, world: World, op: WriteOp): WriteAnswer {
  const rules = rulesOn(holder, world, 'posts');
  if (!rules.some((r) => r.actions.some((a) => WRITE_ACTIONS.includes(a)))) return { status: 403 };
  let before: Row | null = null;
  if (op.kind === 'update') {
    before = world.rows.posts.find((r) => r.wire.id === op.id) ?? null;
    const readsTable = rules.some((r) => r.actions.includes('read'));
    if (!before || (readsTable && !viewOf(holder, world, 'posts').visible(before))) return { status: 404 };
  }
  const status = op.status ?? before?.wire.status ?? 'PUBLISHED';
  const data = op.kind === 'create' ? merged({}, op.data) : merged(before!.wire.data, op.data);
  const after: Row = { table: 'posts', draft: null, wire: { ...(before?.wire ?? { id: '', slug: null, createdAt: '', updatedAt: '', publishedAt: null, publishAt: null, version: 1 }), status, data } };
  const written = changedColumns(before?.wire.data ?? {}, data);
  const publishing = publishes(before?.wire.status ?? null, status);
  const holds = (rule: Rule) => [before, after].every((row) => row === null || whereHolds(rule, row, 'posts', world, holder.me));
  const granting = (action: string) => rules.filter((r) => r.actions.includes(action));
  // A change of nothing but the status is the publish (or unpublish) alone.
  if (!(publishing && op.kind === 'update' && written.length === 0)) {
    const fitting = granting(op.kind).filter((rule) => written.every((w) => covers(rule, w)));
    if (!fitting.some(holds)) return { status: 403 };
  }
  if (publishing && !granting('publish').some(holds)) return { status: 403 };
  return { status: op.kind === 'create' ? 201 : 200, after: { status, data } };
}
