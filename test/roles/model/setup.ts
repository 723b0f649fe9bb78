import { expect } from 'vitest';
import type { CallOptions, CallResult } from '../../helpers/api.js';
import { contentsPath, createTable, type World as ProjectWorld } from '../../contents/fixture.js';
import { authorData, FUTURE, postData } from './generate.js';
import type { Random } from './random.js';
import { STATUSES, TABLE_NAMES, TAGS, WORDS, type Row, type Rule, type Status, type TableName, type Wire, type World } from './schema.js';

/** The HTTP side of the roles model test: tables, roles and keys, rows in every status, and the rows as an account reads them. */

export type Call = (method: string, path: string, options?: CallOptions) => Promise<CallResult>;

/** A role and the API key holding it: `me` is the key's id. */
export interface RoleKey {
  roleId: string;
  me: string;
  secret: string;
  rules: Rule[];
}

export async function createTables(w: ProjectWorld): Promise<World['tables']> {
  const authors = await createTable(w, [
    { name: 'name', type: 'text' },
    { name: 'team', type: 'text' },
  ]);
  const posts = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'price', type: 'number' },
    { name: 'owner', type: 'text' },
    { name: 'secret', type: 'text' },
    { name: 'author', type: 'reference', settings: { table: authors.id } },
    { name: 'tags', type: 'select', settings: { options: TAGS, multiple: true } },
  ]);
  const notes = await createTable(w, [{ name: 'body', type: 'text' }]);
  const pick = (t: { id: string; key: string }) => ({ id: t.id, key: t.key });
  return { authors: pick(authors), posts: pick(posts), notes: pick(notes) };
}

let roles = 0;
/** A role with `rules` and a key holding it. */
export async function createHolder(w: ProjectWorld, rules: Rule[]): Promise<RoleKey> {
  const role = await w.t.call('POST', `/v1/${w.projectId}/roles`, { body: { name: `model-${++roles}`, rules } });
  expect(role.status, `${role.text}\n${JSON.stringify(rules)}`).toBe(201);
  const key = await w.t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name: `model-${roles}`, roleId: role.json.id } });
  expect(key.status, key.text).toBe(201);
  return { roleId: role.json.id, me: key.json.id, secret: key.json.key, rules };
}

/** Creates a row in `status` (an account token); SCHEDULED rows are due in 2099. */
export async function createRow(w: ProjectWorld, tableId: string, data: Record<string, unknown>, status: Status): Promise<string> {
  const body = { data, status, ...(status === 'SCHEDULED' ? { publishAt: FUTURE } : {}) };
  const res = await w.t.call('POST', contentsPath(w, tableId), { body });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

/** Saves a pending draft of a PUBLISHED row; its changes. */
async function saveDraft(w: ProjectWorld, tableId: string, id: string, data: Record<string, unknown>) {
  const res = await w.t.call('PUT', contentsPath(w, tableId, id), { body: { data, draft: true } });
  expect(res.status, res.text).toBe(200);
  return data;
}

/**
 * Rows in every status (each status at least once per table), posts owned by the keys or by
 * others, drafts of some PUBLISHED rows: the changes each draft holds, by row id.
 */
export async function createRows(w: ProjectWorld, rng: Random, tables: World['tables'], owners: string[]): Promise<Map<string, Record<string, unknown>>> {
  const drafts = new Map<string, Record<string, unknown>>();
  const status = (i: number) => (i < STATUSES.length ? STATUSES[i] : rng.pick(STATUSES));
  const authorIds: string[] = [];
  for (let i = 0; i < 7; i++) {
    const s = status(i);
    const id = await createRow(w, tables.authors.id, authorData(rng), s);
    authorIds.push(id);
    if (s === 'PUBLISHED' && rng.chance(0.4)) drafts.set(id, await saveDraft(w, tables.authors.id, id, { team: rng.pick(WORDS.team) }));
  }
  for (let i = 0; i < 22; i++) {
    const s = status(i);
    const id = await createRow(w, tables.posts.id, postData(rng, owners, authorIds), s);
    if (s === 'PUBLISHED' && rng.chance(0.5)) {
      const draft = postData(rng, owners, authorIds);
      drafts.set(id, await saveDraft(w, tables.posts.id, id, Object.fromEntries(Object.entries(draft).filter(() => rng.chance(0.5)))));
    }
  }
  for (const s of ['PUBLISHED', 'PUBLISHED', 'DRAFT'] as const) await createRow(w, tables.notes.id, { body: rng.pick(WORDS.body) }, s);
  return drafts;
}

/** One row as an account reads it, with its `?version=draft` when it has a pending draft. */
export async function readTruth(w: ProjectWorld, table: TableName, tables: World['tables'], id: string): Promise<Row | null> {
  const res = await w.t.call('GET', contentsPath(w, tables[table].id, id));
  if (res.status === 404) return null;
  expect(res.status, res.text).toBe(200);
  const wire = res.json as Wire;
  let draft: Wire | null = null;
  if (wire.hasDraft) {
    const d = await w.t.call('GET', `${contentsPath(w, tables[table].id, id)}?version=draft`);
    expect(d.status, d.text).toBe(200);
    draft = d.json;
  }
  return { table, wire, draft };
}

/** Every row as an account reads it (the model filters these). */
export async function loadWorld(w: ProjectWorld, tables: World['tables']): Promise<World> {
  const rows = {} as World['rows'];
  for (const table of TABLE_NAMES) {
    const res = await w.t.call('GET', `${contentsPath(w, tables[table].id)}?size=1000&sort=${encodeURIComponent('[{"i":"id"}]')}`);
    expect(res.status, res.text).toBe(200);
    rows[table] = [];
    for (const wire of res.json.list as Wire[]) {
      let draft: Wire | null = null;
      if (wire.hasDraft) draft = (await readTruth(w, table, tables, wire.id))!.draft;
      rows[table].push({ table, wire, draft });
    }
  }
  return { tables, rows };
}
