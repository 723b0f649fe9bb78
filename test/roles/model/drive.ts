import { isDeepStrictEqual } from 'node:util';
import { contentsPath, type World as ProjectWorld } from '../../contents/fixture.js';
import type { CallResult } from '../../helpers/api.js';
import { listQuery, someId } from './generate.js';
import { viewOf, type Holder } from './policy.js';
import type { Random } from './random.js';
import { listAll, readOne, referrers, type Answer, type Query } from './reads.js';
import type { Call } from './setup.js';
import type { Row, TableName, World } from './schema.js';

/** Random requests on the read surfaces, answered by the API and by the model in the same shape. */

export type Request =
  | { kind: 'list'; table: TableName; query: Query }
  | { kind: 'pages'; table: TableName; query: Query; size: number }
  | { kind: 'one'; table: TableName; id: string; query: Query; draft: boolean }
  | { kind: 'referrers'; id: string }
  | { kind: 'export'; table: TableName; query: Query };

/**
 * A request: mostly on a table the role reads and about rows it reads (the rest probes the
 * refusals), with hidden columns now and then where readable ones go.
 */
export function randomRequest(rng: Random, world: World, holder: Holder): Request {
  const tables = (['posts', 'authors', 'notes'] as const).filter((t) => viewOf(holder, world, t).readable);
  const table = tables.length > 0 && rng.chance(0.85) ? rng.pick(tables) : rng.weighted([[5, 'posts'], [3, 'authors'], [1, 'notes']] as const);
  const view = viewOf(holder, world, table);
  const query = listQuery(rng, world, table, view.columns, holder.me);
  const kind = rng.weighted([[5, 'list'], [1, 'pages'], [3, 'one'], [2, 'referrers'], [1, 'export']] as const);
  /** A row the role reads, mostly; any row, or an id that names nothing, otherwise. */
  const id = (candidates: Row[], all: Row[]) => (candidates.length > 0 && rng.chance(0.7) ? rng.pick(candidates).wire.id : someId(rng, all));
  switch (kind) {
    case 'list':
      return { kind, table, query };
    case 'pages':
      return { kind, table, query, size: rng.int(2, 6) };
    case 'one': {
      const one: Query = { ...(rng.chance(0.3) ? { fields: query.fields ?? ['status'] } : {}), ...(query.expand ? { expand: true } : {}) };
      const visible = world.rows[table].filter((r) => view.visible(r));
      return { kind, table, id: id(rng.chance(0.5) ? visible.filter((r) => r.draft) : visible, world.rows[table]), query: one, draft: rng.chance(0.3) };
    }
    case 'referrers': {
      const posts = viewOf(holder, world, 'posts');
      const held = new Set(world.rows.posts.filter((p) => posts.visible(p)).map((p) => p.wire.data.author));
      const authors = viewOf(holder, world, 'authors');
      return { kind, id: id(world.rows.authors.filter((a) => authors.visible(a) && held.has(a.wire.id)), world.rows.authors) };
    }
    case 'export': {
      const { expand: _expand, ...rest } = query;
      return { kind, table, query: rest };
    }
  }
}

/** The query string of a query. */
function search(query: Query, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (query.sort) params.set('sort', JSON.stringify(query.sort));
  if (query.filter) params.set('filter', JSON.stringify(query.filter));
  if (query.op) params.set('op', query.op);
  if (query.fields) params.set('fields', query.fields.join(','));
  if (query.search !== undefined) params.set('search', query.search);
  if (query.expand) params.set('expand', 'author');
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params.size > 0 ? `?${params}` : '';
}

/** An error answer as the model states it (the message only where the model knows it). */
const failure = (res: CallResult): Answer => ({ status: res.status, code: res.json?.error?.code, message: res.json?.error?.message });

/** The model's answer to a request, in the shape `actual` gives. */
export function expected(holder: Holder, world: World, req: Request): Answer {
  switch (req.kind) {
    case 'list':
    case 'pages':
    case 'export': {
      const all = listAll(holder, world, req.table, req.query);
      if (!all.items) return all;
      if (req.kind === 'export') return { status: 200, body: all.items };
      if (req.kind === 'list') return { status: 200, body: { list: all.items, total: all.items.length, hasNext: false } };
      const pages: unknown[] = [];
      for (let i = 0; i < all.items.length; i += req.size) pages.push(all.items.slice(i, i + req.size));
      return { status: 200, body: { pages: pages.length > 0 ? pages : [[]], total: all.items.length } };
    }
    case 'one':
      return readOne(holder, world, req.table, req.id, { ...req.query, draft: req.draft });
    case 'referrers':
      return referrers(holder, world, req.id);
  }
}

/** The API's answer to a request through `call` with the key's secret. */
export async function actual(call: Call, w: ProjectWorld, world: World, secret: string, req: Request): Promise<Answer> {
  const get = (path: string) => call('GET', path, { token: secret });
  const tableId = req.kind === 'referrers' ? world.tables.authors.id : world.tables[req.table].id;
  switch (req.kind) {
    case 'list': {
      const res = await get(contentsPath(w, tableId) + search(req.query, { size: '1000' }));
      if (res.status !== 200) return failure(res);
      return { status: 200, body: { list: res.json.list, total: res.json.pagination.total, hasNext: res.json.pagination.hasNext } };
    }
    case 'pages': {
      const pages: unknown[] = [];
      let res = await get(contentsPath(w, tableId) + search(req.query, { size: String(req.size) }));
      if (res.status !== 200) return failure(res);
      const total = res.json.pagination.total;
      for (;;) {
        pages.push(res.json.list);
        const cursor = res.json.pagination.nextCursor;
        if (!cursor || pages.length > 50) break;
        res = await get(contentsPath(w, tableId) + search(req.query, { size: String(req.size), cursor }));
        if (res.status !== 200) return failure(res);
      }
      return { status: 200, body: { pages, total } };
    }
    case 'one': {
      const extra: Record<string, string> = req.draft ? { version: 'draft' } : {};
      const res = await get(contentsPath(w, tableId, req.id) + search(req.query, extra));
      return res.status === 200 ? { status: 200, body: res.json } : failure(res);
    }
    case 'referrers': {
      const res = await get(`${contentsPath(w, tableId, req.id)}/referrers`);
      return res.status === 200 ? { status: 200, body: res.json } : failure(res);
    }
    case 'export': {
      const res = await get(`${contentsPath(w, tableId)}/export${search(req.query)}`);
      if (res.status !== 200) return failure(res);
      return { status: 200, body: res.text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)) };
    }
  }
}

/** An answer as compared: an error's message only where the model states one. */
const comparable = (a: Answer, message: boolean) => ({ status: a.status, body: a.body ?? null, code: a.code ?? null, message: message ? (a.message ?? null) : null });

/** Where the API's answer first departs from the model's (a path and both values); null when they agree. */
export const difference = (model: Answer, api: Answer) => firstDifference(comparable(model, true), comparable(api, model.message !== undefined));

/** Where two answers first differ: a path and both values (what a failure report shows first). */
function firstDifference(model: unknown, api: unknown, path = ''): string | null {
  if (isDeepStrictEqual(model, api)) return null;
  if (model && api && typeof model === 'object' && typeof api === 'object' && Array.isArray(model) === Array.isArray(api)) {
    const [a, b] = [model as Record<string, unknown>, api as Record<string, unknown>];
    if (Array.isArray(a) && a.length !== (b as unknown as unknown[]).length) return `${path}: model has ${a.length} items, the API ${(b as unknown as unknown[]).length}`;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!Object.hasOwn(a, key) || !Object.hasOwn(b, key)) return `${path}.${key}: model ${Object.hasOwn(a, key) ? JSON.stringify(a[key]) : 'absent'}, API ${Object.hasOwn(b, key) ? JSON.stringify(b[key]) : 'absent'}`;
      const found = firstDifference(a[key], b[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return `${path}: model ${JSON.stringify(model)?.slice(0, 300)}, API ${JSON.stringify(api)?.slice(0, 300)}`;
}
