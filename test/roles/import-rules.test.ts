import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOn, type Sql } from '../../src/db/sql.js';
import { compileTablePolicy } from '../../src/modules/roles/policy.js';
import type { Rule } from '../../src/modules/roles/role.schema.js';
import { WriteRules } from '../../src/modules/roles/write-rules.js';
import type { TableDef } from '../../src/modules/tables/table-def.js';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, roleKey, type Table, type World } from '../contents/fixture.js';

/** Imports held to the caller's rules, line by line (docs/roles.md#imports). */

let t: TestApi;
let w: World;
let db: pg.Client;
let posts: Table;
/** A key holding the role below, and its id (`$me`). */
let key: string;
let me: string;

const ROLE: Rule = { table: 'posts', actions: ['create', 'update', 'read'], where: [{ i: 'owner', w: 'eq', v: '$me' }], fields: { write: ['title', 'owner'] } };

/** A key holding a new role with `rules`: its secret and id. */
const keyWithRole = (rules: unknown[]) => roleKey(w, rules);

const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const importAs = (token: string, lines: unknown[], query = '') =>
  t.call('POST', `${contentsPath(w, posts.id)}/import${query}`, { token, raw: ndjson(lines), headers: { 'content-type': 'application/x-ndjson' } });
/** The table's rows, as the database holds them: a 403 must leave them as they were. */
const rows = async () => (await db.query('select id, status, data from contents where table_id = $1 order by id', [posts.id])).rows;

/** 403 FORBIDDEN whose details name exactly `lines`, each `line N`; the details. */
function expectRefused(res: CallResult, lines: number[]) {
  expect(res.status, res.text).toBe(403);
  const { error } = res.json as { error: { code: string; message: string; details: { field: string; message: string }[] } };
  expect(error.code).toBe('FORBIDDEN');
  expect(error.details.map((d) => d.field)).toEqual(lines.map((n) => `line ${n}`));
  expect(error.message).toBe(`Refused by the role's rules: ${lines.map((n) => `line ${n}`).join(', ')}`);
  return error.details;
}

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(
    w,
    [
      { name: 'title', type: 'text' },
      { name: 'owner', type: 'text' },
      { name: 'secret', type: 'text' },
    ],
    { key: 'posts', defaultStatus: 'DRAFT' },
  );
  ({ key, id: me } = await keyWithRole([ROLE]));
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

describe('import by a custom role', () => {
  it('every line inside the rules: 200 and the rows created, across batches', async () => {
    const before = (await rows()).length;
    const lines = Array.from({ length: 1200 }, (_, i) => ({ data: { title: `Mine ${i}`, owner: me } }));
    expect(expectStatus(await importAs(key, lines), 200)).toEqual({ imported: 1200 });
    const after = await rows();
    expect(after.length).toBe(before + 1200);
    expect(after.filter((r) => r.data.owner === me).length).toBeGreaterThanOrEqual(1200);
  });

  it('one line of another owner: 403 naming that line, the table unchanged', async () => {
    const before = await rows();
    const lines = [{ data: { title: 'a', owner: me } }, { data: { title: 'b', owner: 'someone-else' } }, { data: { title: 'c', owner: me } }];
    const [detail] = expectRefused(await importAs(key, lines), [2]);
    expect(detail.message).toBe('This role cannot create this row of table "posts": it is outside the rows its rules allow');
    expect(await rows()).toEqual(before);
  });

  it('in a later batch too: the lines of the batches written before are rolled back', async () => {
    const before = await rows();
    const lines = Array.from({ length: 1100 }, (_, i) => ({ data: { title: `x ${i}`, owner: i === 1049 ? 'intruder' : me } }));
    expectRefused(await importAs(key, lines), [1050]);
    expect(await rows()).toEqual(before);
  });

  it('a line writing a column outside fields.write: 403 naming the line and the column', async () => {
    const before = await rows();
    const lines = [{ data: { title: 'a', owner: me } }, { data: { title: 'b', owner: me } }, { data: { title: 'c', owner: me, secret: 's' } }];
    const [detail] = expectRefused(await importAs(key, lines), [3]);
    expect(detail.message).toBe('This role cannot write "secret" of table "posts"');
    expect(await rows()).toEqual(before);
  });

  it('a line that publishes needs a publish rule; refused lines come before wrong values', async () => {
    const before = await rows();
    const lines = [{ data: { title: 'a', owner: me }, status: 'PUBLISHED' }, { data: { title: 12, owner: me } }, { data: { title: 'c', owner: 'other' } }];
    const details = expectRefused(await importAs(key, lines), [1, 3]);
    expect(details[0].message).toBe('This role cannot publish rows of table "posts"');
    expect(await rows()).toEqual(before);
    // Without the refused lines, the wrong value is the 422 it always was.
    const invalid = await importAs(key, [lines[1]]);
    expect(invalid.status, invalid.text).toBe(422);
    expect(await rows()).toEqual(before);
  });

  it('upsert: rows inside are updated; a row outside the where, or moved out of it, is 403 and nothing changes', async () => {
    const mine = await createRow(w, posts.id, { title: 'Old', owner: me }, { status: 'DRAFT' });
    const theirs = await createRow(w, posts.id, { title: 'Theirs', owner: 'someone-else' }, { status: 'DRAFT' });
    expect(expectStatus(await importAs(key, [{ id: mine.id, data: { title: 'New' } }, { data: { title: 'Fresh', owner: me } }], '?mode=upsert'), 200)).toEqual({ imported: 2 });
    const stored = async (id: string) => (await db.query('select data from contents where id = $1', [id])).rows[0].data;
    expect(await stored(mine.id)).toEqual({ title: 'New', owner: me });

    const before = await rows();
    const [outside] = expectRefused(await importAs(key, [{ id: mine.id, data: { title: 'Newer' } }, { id: theirs.id, data: { title: 'Mine now' } }], '?mode=upsert'), [2]);
    expect(outside.message).toBe('This role cannot update this row of table "posts": it is outside the rows its rules allow');
    expectRefused(await importAs(key, [{ id: mine.id, data: { owner: 'given-away' } }], '?mode=upsert'), [1]);
    expectRefused(await importAs(key, [{ id: mine.id, data: { secret: 'x' } }], '?mode=upsert'), [1]);
    expect(await rows()).toEqual(before);
  });

  it('upsert by a role with writeAsDraft: an update of a PUBLISHED row is refused (its PUT writes a draft)', async () => {
    const drafter = await keyWithRole([{ ...ROLE, actions: ['create', 'update', 'read', 'publish'], writeAsDraft: true }]);
    const published = await createRow(w, posts.id, { title: 'Live', owner: drafter.id }, { status: 'PUBLISHED' });
    const draft = await createRow(w, posts.id, { title: 'Draft', owner: drafter.id }, { status: 'DRAFT' });
    const before = await rows();
    const [detail] = expectRefused(await importAs(drafter.key, [{ id: draft.id, data: { title: 'ok' } }, { id: published.id, data: { title: 'Changed' } }], '?mode=upsert'), [2]);
    expect(detail.message).toContain('become drafts');
    expect(await rows()).toEqual(before);
    expect(expectStatus(await importAs(drafter.key, [{ id: draft.id, data: { title: 'ok' } }], '?mode=upsert'), 200)).toEqual({ imported: 1 });
  });

  it('a role without create: 403 on every creating line', async () => {
    const updater = await keyWithRole([{ ...ROLE, actions: ['update', 'read'] }]);
    const before = await rows();
    const details = expectRefused(await importAs(updater.key, [{ data: { title: 'a', owner: updater.id } }, { data: { title: 'b', owner: updater.id } }]), [1, 2]);
    expect(details.map((d) => d.message)).toEqual(Array(2).fill('This role cannot create rows of table "posts"'));
    expect(await rows()).toEqual(before);
  });

  it('a built-in read_write key imports as before, any owner and any column', async () => {
    const before = (await rows()).length;
    const lines = [{ data: { title: 'a', owner: 'anyone', secret: 's' }, status: 'PUBLISHED' }, { data: { title: 'b' } }];
    expect(expectStatus(await importAs(w.writeKey, lines), 200)).toEqual({ imported: 2 });
    expect((await rows()).length).toBe(before + 2);
  });
});

describe('WriteRules.checkMany', () => {
  let pool: pg.Pool;
  let table: TableDef;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: t.db.url, max: 2 });
    table = {
      id: posts.id,
      projectId: w.projectId,
      key: 'posts',
      defaultStatus: 'DRAFT',
      columns: Object.values(posts.columns).map((c) => ({ id: c.id, name: c.name, type: c.type as 'text', settings: c.settings })),
      hiddenKeys: [],
      schemaKey: 'test',
    };
  });
  afterAll(async () => pool?.end());

  /** The rules compiled for the caller `me`, and an Sql on the pool that counts its statements. */
  async function rulesOf(rules: Rule[]) {
    const policy = await compileTablePolicy(rules, table, { me, kind: 'apiKey' }, new Date(), { locales: ['en', 'fr'], defaultLocale: 'en', tables: async () => table });
    const counted = { statements: 0 };
    const inner = sqlOn(pool);
    const sql: Sql = (query) => {
      counted.statements++;
      return inner(query);
    };
    return { writeRules: new WriteRules(policy, table), sql, counted };
  }
  const row = (data: Record<string, unknown>, status = 'DRAFT') => ({
    id: '0190b0a0-0000-7000-8000-000000000001',
    table_id: table.id,
    status,
    slug: null,
    data,
    created_at: new Date(),
    updated_at: new Date(),
    published_at: null,
    publish_at: null,
  });

  it('per change, a where JavaScript can tell without a query, and one query for the whole batch when it cannot', async () => {
    // `owner eq $me` is told in JavaScript; the same rule also bounding createdAt is left to the database.
    const timed: Rule = { ...ROLE, where: [...ROLE.where!, { i: 'createdAt', w: 'gte', v: '2000-01-01' }] };
    for (const [rules, queries] of [[[ROLE], 0], [[timed], 1]] as const) {
      const { writeRules, sql, counted } = await rulesOf([...rules]);
      const answers = await writeRules.checkMany(sql, [
        { before: null, after: row({ title: 'a', owner: me }) },
        { before: null, after: row({ title: 'b', owner: 'other' }) },
        { before: row({ title: 'c', owner: me }), after: row({ title: 'd', owner: me }) },
        { before: row({ title: 'c', owner: me }), after: row({ title: 'd', owner: 'other' }) },
        { before: null, after: row({ title: 'e', owner: me, secret: 'x' }) },
      ]);
      expect(answers).toEqual([
        null,
        'This role cannot create this row of table "posts": it is outside the rows its rules allow',
        null,
        'This role cannot update this row of table "posts": it is outside the rows its rules allow',
        'This role cannot write "secret" of table "posts"',
      ]);
      expect(counted.statements).toBe(queries);
    }
  });

  it('no query when no granting rule has a where; check throws the 403 of its one change', async () => {
    const { writeRules, sql, counted } = await rulesOf([{ table: 'posts', actions: ['create', 'read'], fields: { write: ['title'] } }]);
    const changes = Array.from({ length: 500 }, (_, i) => ({ before: null, after: row(i === 7 ? { owner: 'x' } : { title: `t${i}` }) }));
    const answers = await writeRules.checkMany(sql, changes);
    expect(answers.filter((a) => a !== null)).toEqual(['This role cannot write "owner" of table "posts"']);
    expect(answers[7]).not.toBeNull();
    expect(counted.statements).toBe(0);
    await expect(writeRules.check(sql, changes[7])).rejects.toMatchObject({ status: 403, message: 'This role cannot write "owner" of table "posts"' });
    await expect(writeRules.check(sql, changes[0])).resolves.toBeUndefined();
    expect(counted.statements).toBe(0);
  });
});
