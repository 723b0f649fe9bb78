import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createTable, expectStatus, type Table, type World } from '../contents/fixture.js';
import { importRows, releaseEvents, releaseOf, revisionsOfRelease, rowEventCounts, rowStates } from './fixture.js';

/**
 * docs/releases.md#publishing at scale: a release of 1,000 rows is one transaction (every row
 * changes at the same instant for every reader, or none does), and releases over the same table
 * published at the same time both go through.
 */
let t: TestApi;
let w: World;
let posts: Table;
let db: pg.Pool;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  db = new pg.Pool({ connectionString: t.db.url, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

const publish = (releaseId: string) => t.call('POST', `/v1/${w.projectId}/releases/${releaseId}/publish`, { token: w.writeKey });
const countWhere = async (ids: string[], status: string) =>
  (await db.query<{ n: number }>('select count(*)::int as n from contents where id = any($1::uuid[]) and status = $2', [ids, status])).rows[0].n;

describe('a release of 1,000 rows', () => {
  it('publishes them all in one transaction: readers see none or all, each row once, one release.published', { timeout: 180_000 }, async () => {
    const ids = await importRows(w, posts.id, 1000, 'DRAFT', 'launch');
    const releaseId = await releaseOf(w, posts.id, ids.map((id) => ({ id, action: 'publish' as const })));

    // A reader polls the rows while the publish runs: it may only ever see 0 or 1,000 of them published.
    let done = false;
    const seen = new Set<number>();
    const reader = (async () => {
      while (!done) seen.add(await countWhere(ids, 'PUBLISHED'));
    })();
    const res = await publish(releaseId);
    done = true;
    await reader;
    expect(expectStatus(res, 200).status).toBe('published');
    expect([...seen].filter((n) => n !== 0 && n !== 1000)).toEqual([]);

    const rows = await rowStates(db, ids);
    expect(rows.filter((r) => r.status !== 'PUBLISHED' || r.version !== 2)).toEqual([]);
    // One transaction, one instant: every row carries the same publishedAt.
    expect(new Set(rows.map((r) => r.publishedAt)).size).toBe(1);
    const revisions = await revisionsOfRelease(db, releaseId);
    expect(revisions.size).toBe(1000);
    expect([...revisions.values()].every((n) => n === 1)).toBe(true);
    const published = await rowEventCounts(db, 'contents.published', ids);
    expect(published.size).toBe(1000);
    expect([...published.values()].every((n) => n === 1)).toBe(true);
    expect(await releaseEvents(db, releaseId)).toEqual([{ releaseId, count: 1000 }]);
  });

  it('two releases over the same table published at the same time both go through', { timeout: 180_000 }, async () => {
    // One publishes drafts, the other unpublishes published rows: both move the table's counts
    // of DRAFT and PUBLISHED rows, which must not leave them waiting for each other.
    const drafts = await importRows(w, posts.id, 300, 'DRAFT', 'left');
    const live = await importRows(w, posts.id, 300, 'PUBLISHED', 'right');
    const left = await releaseOf(w, posts.id, drafts.map((id) => ({ id, action: 'publish' as const })));
    const right = await releaseOf(w, posts.id, live.map((id) => ({ id, action: 'unpublish' as const })));
    const totals = async () => expectStatus(await t.call('GET', `/v1/${w.projectId}/tables/${posts.id}/contents?size=1`, { token: w.readKey }), 200).pagination.total as number;
    const publishedBefore = await totals();

    const [a, b] = await Promise.all([publish(left), publish(right)]);
    expect([a.status, b.status], `${a.text} ${b.text}`).toEqual([200, 200]);
    expect(await countWhere(drafts, 'PUBLISHED')).toBe(300);
    expect(await countWhere(live, 'DRAFT')).toBe(300);
    // The counted totals moved by what the rows did: +300 and -300 published.
    expect(await totals()).toBe(publishedBefore);
    const { rows } = await db.query<{ status: string; n: number }>(
      `select status, sum(count)::int as n from contents_count where table_id = $1 group by status order by status`,
      [posts.id],
    );
    const { rows: actual } = await db.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from contents where table_id = $1 group by status order by status`,
      [posts.id],
    );
    expect(rows.filter((r) => r.n !== 0)).toEqual(actual);
  });
});
