import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { buildWorld, createTable, expectCreated, expectStatus, putRow, type Table, type World } from '../contents/fixture.js';
import { rowStates } from './fixture.js';
import { createOrmConfig } from '../../mikro-orm.config.js';
import { openOrm } from '../../src/db/orm.js';
import { createPool } from '../../src/db/pool.js';
import { createLogger } from '../../src/shared/logger.js';
import { transaction, type Sql } from '../../src/db/sql.js';
import { CountChanges } from '../../src/modules/contents/index.js';
import { ROWS_PER_STATEMENT } from '../../src/modules/contents/rows/update-many.js';
import { insertItem } from '../../src/modules/releases/releases.sql.js';
import { uuidv7 } from '../../src/shared/ids.js';
import { TableDefinitions } from '../../src/modules/tables/table-definitions.js';
import type { ProjectInfo } from '../../src/modules/projects/project-directory.js';
import { publishLockedRelease } from '../../src/modules/releases/releases.publish.js';
import { projectInfoOf, releaseOf, type ReleaseRow } from '../../src/modules/releases/releases.sql.js';

/**
 * docs/releases.md#publishing: a release's items are checked as single writes are, but together,
 * and written by one statement per ROWS_PER_STATEMENT rows: the statements of a publish grow by
 * one per such slice only. A value taken, which only the database tells, still fails the release
 * naming its item.
 */
let t: TestApi;
let w: World;
let pool: pg.Pool;
let orm: Awaited<ReturnType<typeof openOrm>>;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  pool = createPool(t.db.url, 2, createLogger('silent'));
  orm = await openOrm(createOrmConfig(t.db.url), { migrate: false });
});
afterAll(async () => {
  await orm?.close();
  await pool?.end();
  await t?.close();
});

const releasesPath = () => `/v1/${w.projectId}/releases`;

/** Rows imported in `status` with `data(n)`; their ids in order. */
async function importRows(table: Table, count: number, status: string, data: (n: number) => Record<string, unknown>): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const lines = ids.map((id, n) => JSON.stringify({ id, data: data(n), status }));
  const res = await t.call('POST', `/v1/${w.projectId}/tables/${table.id}/contents/import`, {
    token: w.writeKey,
    raw: Buffer.from(lines.join('\n')),
    headers: { 'content-type': 'application/x-ndjson' },
  });
  expect(expectStatus(res, 200)).toEqual({ imported: count });
  return ids;
}

/** An open release with these items, added one after the other (so in this order); its id. */
async function releaseWith(table: Table, items: { id: string; action: string }[]): Promise<string> {
  const release = expectCreated(await t.call('POST', releasesPath(), { token: w.writeKey, body: { name: 'Batch' } }));
  for (const { id, action } of items) {
    expectCreated(await t.call('POST', `${releasesPath()}/${release.id}/items`, { token: w.writeKey, body: { tableId: table.id, contentsId: id, action } }));
  }
  return release.id as string;
}

/**
 * Publishes a release as the API does, through an Sql that counts its statements (the outbox
 * insert, on the client, is one more whatever the number of items); answers how many.
 */
async function statementsOfPublish(releaseId: string): Promise<number> {
  const tables = new TableDefinitions(orm);
  return transaction(pool, async (inner, client) => {
    let statements = 0;
    const sql: Sql = (query) => {
      statements++;
      return inner(query);
    };
    const [release] = await inner<ReleaseRow>(releaseOf(w.projectId, releaseId, true));
    const [project] = await inner<ProjectInfo>(projectInfoOf(w.projectId));
    const scopeOf = async (tableId: string) => ({ pool, table: (await tables.get(w.projectId, tableId))!, project, actor: null });
    const counts = new CountChanges();
    await publishLockedRelease(scopeOf, sql, client, release, counts);
    await counts.apply(sql);
    return statements;
  });
}

describe('publishing a release', () => {
  it('takes as many statements for 100 items as for 10: checks, references and drafts asked at once, rows written by one statement', { timeout: 120_000 }, async () => {
    const authors = await createTable(w, [{ name: 'name', type: 'text' }]);
    const posts = await createTable(w, [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'reference', settings: { table: authors.id } },
    ]);
    const authorIds = await importRows(authors, 3, 'PUBLISHED', (n) => ({ name: `author ${n}` }));
    const counted: number[] = [];
    for (const size of [10, 100]) {
      // Half the items publish DRAFT rows, half publish the pending drafts of PUBLISHED rows; all reference an author.
      const drafts = await importRows(posts, size / 2, 'DRAFT', (n) => ({ title: `draft ${n}`, author: authorIds[n % 3] }));
      const published = await importRows(posts, size / 2, 'PUBLISHED', (n) => ({ title: `live ${n}`, author: authorIds[n % 3] }));
      for (const id of published) expectStatus(await putRow(w, posts.id, id, { data: { title: `next ${id}` }, draft: true }), 200);
      const releaseId = await releaseWith(posts, [...drafts.map((id) => ({ id, action: 'publish' })), ...published.map((id) => ({ id, action: 'publishDraft' }))]);
      counted.push(await statementsOfPublish(releaseId));

      const rows = await rowStates(pool, [...drafts, ...published]);
      expect(rows.filter((r) => r.status !== 'PUBLISHED' || r.version !== 2 || r.hasDraft)).toEqual([]);
      expect(rows.slice(size / 2).map((r) => r.title)).toEqual(published.map((id) => `next ${id}`));
      const { rows: revisions } = await pool.query<{ n: number }>('select count(*)::int as n from contents_revision where release_id = $1', [releaseId]);
      expect(revisions[0].n).toBe(size);
    }
    expect(counted[1]).toBe(counted[0]);
  });

  it('writes one slice of ROWS_PER_STATEMENT rows per statement: one more statement for one row more', { timeout: 120_000 }, async () => {
    const posts = await createTable(w, [{ name: 'title', type: 'text' }]);
    const counted: number[] = [];
    for (const size of [ROWS_PER_STATEMENT, ROWS_PER_STATEMENT + 1]) {
      const drafts = await importRows(posts, size, 'DRAFT', (n) => ({ title: `draft ${n}` }));
      const release = expectCreated(await t.call('POST', releasesPath(), { token: w.writeKey, body: { name: `Slices ${size}` } }));
      // The items written directly: adding them through the API one by one is what the tests above do.
      for (const id of drafts) await pool.query(insertItem(uuidv7(), release.id, posts.id, id, 'publish'));
      counted.push(await statementsOfPublish(release.id));
      const rows = await rowStates(pool, drafts);
      expect(rows.filter((r) => r.status !== 'PUBLISHED' || r.version !== 2)).toEqual([]);
    }
    expect(counted[1]).toBe(counted[0] + 1);
  });

  it('a unique value two items take fails the release naming the second, and changes nothing', async () => {
    const table = await createTable(w, [{ name: 'code', type: 'text', settings: { unique: true } }]);
    const ids = await importRows(table, 3, 'PUBLISHED', (n) => ({ code: `code-${n}` }));
    expectStatus(await putRow(w, table.id, ids[1], { data: { code: 'taken' }, draft: true }), 200);
    expectStatus(await putRow(w, table.id, ids[2], { data: { code: 'taken' }, draft: true }), 200);
    const releaseId = await releaseWith(table, [ids[0], ids[1], ids[2]].map((id) => ({ id, action: 'publishDraft' })));
    // ids[0] has no draft: the first item fails before the database is asked anything.
    const first = expectError(await t.call('POST', `${releasesPath()}/${releaseId}/publish`, { token: w.writeKey }), 404, 'NOT_FOUND');
    expect(first.message).toContain(`items.0 (`);
    expectStatus(await t.call('DELETE', `${releasesPath()}/${releaseId}/items/${(await itemOf(releaseId, ids[0]))}`, { token: w.writeKey }), 204);

    const error = expectError(await t.call('POST', `${releasesPath()}/${releaseId}/publish`, { token: w.writeKey }), 409, 'CONFLICT');
    expect(error.message).toMatch(new RegExp(`^items\\.1 \\(item [0-9a-f-]+, contents ${ids[2]}\\): data\\.code: `));
    const rows = await rowStates(pool, ids);
    expect(rows.map((r) => [r.version, r.hasDraft])).toEqual([[1, false], [1, true], [1, true]]);
  });
});

/** The item id of a row in a release. */
async function itemOf(releaseId: string, rowId: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>('select id from release_item where release_id = $1 and row_id = $2', [releaseId, rowId]);
  return rows[0].id;
}
