import type { Random } from './random.js';
import type { Query } from './reads.js';
import { columnsOf, LOCALES, PRICES, STATUSES, TAGS, WORDS, type Item, type Row, type Rule, type Status, type TableName, type World } from './schema.js';
import type { WriteOp } from './writes.js';

/** Random rules, rows, queries and writes of the roles model test, all drawn from one seeded Random. */

/** One or two words of a column's vocabulary. */
const words = (rng: Random, list: readonly string[]) => (rng.chance(0.25) ? `${rng.pick(list)} ${rng.pick(list)}` : rng.pick(list));

/** A post's data: each column present or not, some values null-ish (absent). */
export function postData(rng: Random, owners: string[], authorIds: string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (rng.chance(0.85)) data.title = { en: words(rng, WORDS.titleEn), ...(rng.chance(0.6) ? { fr: words(rng, WORDS.titleFr) } : {}) };
  if (rng.chance(0.8)) data.price = rng.pick(PRICES);
  if (rng.chance(0.9)) data.owner = rng.pick(owners);
  if (rng.chance(0.7)) data.secret = words(rng, WORDS.secret);
  if (rng.chance(0.8) && authorIds.length > 0) data.author = rng.pick(authorIds);
  if (rng.chance(0.7)) data.tags = rng.subset(TAGS);
  return data;
}

export function authorData(rng: Random): Record<string, unknown> {
  return { name: words(rng, WORDS.name), ...(rng.chance(0.8) ? { team: rng.pick(WORDS.team) } : {}) };
}

/** Filter items of a role's `where` on a table (`*`: system fields only). */
function whereItem(rng: Random, table: TableName | '*'): Item {
  const status = (): Item => rng.pick([
    { i: 'status', w: 'eq', v: rng.pick(STATUSES) },
    { i: 'status', w: 'neq', v: rng.pick(STATUSES) },
    { i: 'status', w: 'in', v: rng.some(STATUSES) },
  ]);
  if (table === '*') return status();
  if (table === 'authors') {
    return rng.pick<() => Item>([
      () => ({ i: 'team', w: rng.pick(['eq', 'neq']), v: rng.pick(WORDS.team) }),
      () => ({ i: 'team', w: 'in', v: rng.some(WORDS.team) }),
      () => ({ i: 'team', w: 'null', v: rng.chance(0.5) }),
      () => ({ i: 'name', w: rng.pick(['contains', 'startsWith']), v: rng.pick(['NO', 'tt', 'pi', 'a']) }),
      status,
    ])();
  }
  return rng.pick<() => Item>([
    () => ({ i: 'price', w: rng.pick(['gt', 'lt', 'eq', 'neq', 'gte', 'lte']), v: rng.pick(PRICES) }),
    () => ({ i: 'owner', w: 'eq', v: '$me' }),
    () => ({ i: 'owner', w: 'eq', v: '$me' }),
    () => ({ i: 'owner', w: 'in', v: ['$me', rng.pick(WORDS.owner)] }),
    () => ({ i: 'owner', w: 'neq', v: '$me' }),
    () => ({ i: 'secret', w: 'contains', v: rng.pick(['ZEB', 'alr', 'ya', 'a']) }),
    () => ({ i: 'secret', w: 'null', v: rng.chance(0.5) }),
    () => ({ i: 'title', w: 'eq', v: rng.pick(WORDS.titleFr), l: 'fr' }),
    () => ({ i: 'title', w: 'startsWith', v: rng.pick(['ki', 'LI', 'm']) }),
    () => ({ i: 'tags', w: 'eq', v: rng.pick(TAGS) }),
    () => ({ i: 'tags', w: rng.pick(['in', 'nin']), v: rng.some(TAGS) }),
    () => ({ i: 'author.team', w: rng.pick(['eq', 'neq']), v: rng.pick(WORDS.team) }),
    () => ({ i: 'author.team', w: 'eq', v: rng.pick(WORDS.team) }),
    status,
  ])();
}

const where = (rng: Random, table: TableName | '*', max = 2): Item[] | undefined => {
  const n = rng.weighted([[4, 0], [4, 1], [2, max]] as const);
  return n === 0 ? undefined : Array.from({ length: n }, () => whereItem(rng, table));
};

/** A read rule on posts, authors or `*`. */
function readRule(rng: Random, world: World): Rule {
  const table = rng.weighted([[3, 'posts'], [2, 'authors'], [1, '*']] as const);
  const rule: Rule = { table: table === '*' ? '*' : world.tables[table].key, actions: rng.chance(0.85) ? ['read'] : ['read', 'update'] };
  const w = where(rng, table);
  if (w) rule.where = w;
  if (table !== '*' && rng.chance(0.6)) rule.fields = { read: rng.subset(columnsOf(table), 0.6) };
  if (rng.chance(0.5)) rule.statuses = rng.some(STATUSES);
  if (rng.chance(0.45)) rule.drafts = true;
  return rule;
}

/** One to three read rules, now and then a create-only rule on posts (columns shown by writes, no rows). */
export function readRules(rng: Random, world: World): Rule[] {
  const rules = Array.from({ length: rng.int(1, 3) }, () => readRule(rng, world));
  if (rng.chance(0.15)) rules.push({ table: world.tables.posts.key, actions: ['create'], fields: { write: rng.some(['price', 'owner', 'title.fr']) } });
  return rules;
}

const WRITABLE = ['title', 'title.en', 'title.fr', 'price', 'owner', 'secret', 'tags', 'author'];

/** The rules of a writer: create, update and publish on posts, with a `where` and `fields.write`; the first one reads every status. */
export function writeRules(rng: Random, world: World): Rule[] {
  return Array.from({ length: rng.int(1, 2) }, (_, i) => {
    const actions = rng.some(['create', 'update', 'publish'], 0.6);
    const rule: Rule = { table: world.tables.posts.key, actions: i === 0 || rng.chance(0.3) ? ['read', ...actions] : actions };
    const w = where(rng, 'posts', 1);
    if (w) rule.where = w;
    if (rng.chance(0.5)) rule.fields = { write: rng.some(WRITABLE, 0.5) };
    if (i === 0 || rng.chance(0.5)) rule.statuses = [...STATUSES];
    return rule;
  });
}

const TRANSITIONS: Record<Status, Status[]> = { DRAFT: ['PUBLISHED', 'SCHEDULED', 'ARCHIVED'], SCHEDULED: ['DRAFT', 'PUBLISHED'], PUBLISHED: ['DRAFT', 'ARCHIVED'], ARCHIVED: ['DRAFT'] };
export const FUTURE = '2099-01-01T00:00:00.000Z';

/**
 * A create or an update of a post (some updates write what the row already holds, some change
 * only the status), mostly owned by the writer (`me`) and on rows it reads (`readable`).
 */
export function writeOp(rng: Random, world: World, owners: string[], me: string, readable: Row[]): WriteOp {
  const authorIds = world.rows.authors.map((r) => r.wire.id);
  const ownersNow = rng.chance(0.5) ? [me] : owners;
  if (rng.chance(0.4)) {
    const data = Object.fromEntries(Object.entries(postData(rng, ownersNow, authorIds)).filter(([column]) => column === 'owner' || rng.chance(0.5)));
    return { kind: 'create', data, status: rng.pick(['DRAFT', 'PUBLISHED'] as const) };
  }
  const row = rng.pick(readable.length > 0 && rng.chance(0.8) ? readable : world.rows.posts);
  const fresh = postData(rng, ownersNow, authorIds);
  const data: Record<string, unknown> = {};
  for (const column of rng.subset(Object.keys(fresh), 0.4)) data[column] = rng.chance(0.2) ? (row.wire.data[column] ?? fresh[column]) : fresh[column];
  if (rng.chance(0.2) && data.title) data.title = { fr: words(rng, WORDS.titleFr) };
  if (!rng.chance(0.3)) return { kind: 'update', id: row.wire.id, data };
  const status = rng.pick(TRANSITIONS[row.wire.status]);
  return { kind: 'update', id: row.wire.id, data, status, ...(status === 'SCHEDULED' ? { publishAt: FUTURE } : {}) };
}

/** A list filter item on `table`, mostly on a column the role reads (`readable`), now and then on any. */
function filterItem(rng: Random, world: World, table: TableName, readable: string[], me: string): Item {
  const pool = rng.chance(0.8) && readable.length > 0 ? readable : columnsOf(table);
  const column = rng.chance(0.15) ? 'status' : rng.pick(pool);
  const authorIds = world.rows.authors.map((r) => r.wire.id);
  const text = (list: readonly string[]): Item => rng.pick<Item>([
    { i: column, w: 'eq', v: rng.pick(list) },
    { i: column, w: 'neq', v: rng.pick(list) },
    { i: column, w: 'in', v: rng.some(list) },
    { i: column, w: 'contains', v: rng.pick(list).slice(1, 3).toUpperCase() },
    { i: column, w: 'ncontains', v: rng.pick(list).slice(0, 2) },
    { i: column, w: 'null', v: rng.chance(0.5) },
  ]);
  switch (column) {
    case 'status':
      return rng.pick<Item>([{ i: 'status', w: 'eq', v: rng.pick(STATUSES) }, { i: 'status', w: 'in', v: rng.some(STATUSES) }]);
    case 'title':
      return { ...text([...WORDS.titleEn, ...WORDS.titleFr]), ...(rng.chance(0.4) ? { l: rng.pick(LOCALES) } : {}) };
    case 'price':
      return rng.pick<Item>([
        { i: 'price', w: rng.pick(['eq', 'neq', 'gt', 'lt', 'gte', 'lte']), v: rng.pick(PRICES) },
        { i: 'price', w: 'in', v: rng.some(PRICES) },
        { i: 'price', w: 'between', v: [10, 35] },
        { i: 'price', w: 'null', v: rng.chance(0.5) },
      ]);
    case 'owner':
      return text([me, ...WORDS.owner]);
    case 'author':
      return rng.chance(0.5) ? { i: 'author', w: 'null', v: rng.chance(0.5) } : { i: 'author', w: 'eq', v: rng.pick(authorIds) };
    case 'tags':
      return rng.pick<Item>([{ i: 'tags', w: 'eq', v: rng.pick(TAGS) }, { i: 'tags', w: rng.pick(['in', 'nin']), v: rng.some(TAGS) }, { i: 'tags', w: 'null', v: rng.chance(0.5) }]);
    default:
      return text(WORDS[column as 'secret' | 'name' | 'team' | 'body']);
  }
}

/** A dotted filter through the post's author. */
const dotted = (rng: Random): Item =>
  rng.pick<Item>([
    { i: 'author.team', w: 'eq', v: rng.pick(WORDS.team) },
    { i: 'author.team', w: rng.pick(['neq', 'in']), v: rng.pick(WORDS.team) },
    { i: 'author.name', w: 'contains', v: rng.pick(['no', 'TT', 'e']) },
  ]);

/** The words of each searchable column. */
const COLUMN_WORDS: Record<string, readonly string[]> = {
  title: [...WORDS.titleEn, ...WORDS.titleFr],
  owner: WORDS.owner,
  secret: WORDS.secret,
  name: WORDS.name,
  team: WORDS.team,
  body: WORDS.body,
};

/** A list query on `table`: a deterministic sort, and now and then filters, fields, a search, `expand`. */
export function listQuery(rng: Random, world: World, table: TableName, readable: string[], me: string): Query {
  const query: Query = {};
  const o = () => rng.pick(['asc', 'desc'] as const);
  query.sort = table === 'posts' && rng.chance(0.5) ? [{ i: 'price', o: o() }, { i: 'id', o: 'asc' }] : [{ i: 'id', o: o() }];
  if (rng.chance(0.55)) {
    const n = rng.int(1, 2);
    query.filter = Array.from({ length: n }, () => (table === 'posts' && rng.chance(0.3) ? dotted(rng) : filterItem(rng, world, table, readable, me)));
    if (n > 1 && rng.chance(0.5)) query.op = 'or';
  }
  if (rng.chance(0.25)) {
    const pool = rng.chance(0.8) && readable.length > 0 ? readable : columnsOf(table);
    query.fields = [...rng.some(pool), ...rng.subset(['status', 'createdAt', 'hasDraft', 'publishAt'], 0.3)];
  }
  if (rng.chance(0.3)) {
    // Half the time a word of a column the role may not read: it must find nothing there.
    const hidden = columnsOf(table).filter((c) => !readable.includes(c) && COLUMN_WORDS[c]);
    const word = rng.pick(hidden.length > 0 && rng.chance(0.5) ? COLUMN_WORDS[rng.pick(hidden)] : Object.values(WORDS).flat());
    query.search = rng.chance(0.3) ? word.slice(0, 3) : word;
  }
  if (table === 'posts' && rng.chance(0.25)) query.expand = true;
  return query;
}

/** Any row of the table (the role may or may not read it), or an id that names nothing. */
export const someId = (rng: Random, rows: Row[]) => (rng.chance(0.05) || rows.length === 0 ? '0190b0a0-0000-7000-8000-00000000c0de' : rng.pick(rows).wire.id);
