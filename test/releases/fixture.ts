import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { expect } from 'vitest';
import type { CallResult } from '../helpers/api.js';
import { expectCreated, expectStatus, type World } from '../contents/fixture.js';

/** Shared helpers of the test/releases suite: many rows, large releases, their state read in bulk. */

export type Action = 'publish' | 'unpublish' | 'publishDraft';
type Call = (method: string, path: string, options?: { token?: string | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> }) => Promise<CallResult>;

/** `count` rows of `table` titled `<prefix> <n>`, in `status`, through the import (one request); their ids in order. */
export async function importRows(w: World, tableId: string, count: number, status: string, prefix: string, call: Call = w.t.call): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const lines = ids.map((id, n) => JSON.stringify({ id, data: { title: `${prefix} ${n}` }, status }));
  const res = await call('POST', `/v1/${w.projectId}/tables/${tableId}/contents/import`, { token: w.writeKey, raw: Buffer.from(lines.join('\n')), headers: { 'content-type': 'application/x-ndjson' } });
  expect(expectStatus(res, 200)).toEqual({ imported: count });
  return ids;
}

/** Runs `work` over `items`, `parallel` at a time. */
async function eachParallel<T>(items: T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/** A release (`body`: name, publishAt) holding `rows` with their actions, added through the API; its id. */
export async function releaseOf(w: World, tableId: string, rows: { id: string; action: Action }[], body: Record<string, unknown> = { name: 'Large' }, call: Call = w.t.call): Promise<string> {
  const release = expectCreated(await call('POST', `/v1/${w.projectId}/releases`, { token: w.writeKey, body }));
  await eachParallel(rows, 8, async ({ id, action }) => {
    expectCreated(await call('POST', `/v1/${w.projectId}/releases/${release.id}/items`, { token: w.writeKey, body: { tableId, contentsId: id, action } }));
  });
  return release.id as string;
}

export interface RowState {
  id: string;
  status: string;
  version: number;
  title: string;
  hasDraft: boolean;
  publishedAt: string | null;
}

/** The rows as stored (committed), in the order of `ids`. */
export async function rowStates(db: pg.Client | pg.Pool, ids: string[]): Promise<RowState[]> {
  const { rows } = await db.query<RowState>(
    `select id, status, version, data->>'title' as title, draft is not null as "hasDraft", published_at::text as "publishedAt"
       from contents where id = any($1::uuid[])`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)!);
}

/** The release as stored: status, and its timestamps as text (microseconds kept). */
export async function releaseState(db: pg.Client | pg.Pool, releaseId: string) {
  const { rows } = await db.query<{ status: string; publishAt: string | null; publishedAt: string | null; lateMs: number | null }>(
    `select status, publish_at::text as "publishAt", published_at::text as "publishedAt",
            (extract(epoch from published_at - publish_at) * 1000)::float8 as "lateMs"
       from release where id = $1`,
    [releaseId],
  );
  return rows[0];
}

/** Per row, how many revisions name the release. */
export async function revisionsOfRelease(db: pg.Client | pg.Pool, releaseId: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ row_id: string; n: number }>('select row_id, count(*)::int as n from contents_revision where release_id = $1 group by row_id', [releaseId]);
  return new Map(rows.map((r) => [r.row_id, r.n]));
}

/** The `release.published` events of a release still in the outbox (no relay running). */
export async function releaseEvents(db: pg.Client | pg.Pool, releaseId: string): Promise<{ releaseId: string; count: number }[]> {
  const { rows } = await db.query(`select payload from event_outbox where payload->>'type' = 'release.published' and payload->'data'->>'releaseId' = $1`, [releaseId]);
  return rows.map((r) => r.payload.data);
}

/** Per row of `ids`, how many events of `type` name it in the outbox. */
export async function rowEventCounts(db: pg.Client | pg.Pool, type: string, ids: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; n: number }>(
    `select payload->'data'->>'id' as id, count(*)::int as n from event_outbox where payload->>'type' = $1 and payload->'data'->>'id' = any($2::text[]) group by 1`,
    [type, ids],
  );
  return new Map(rows.map((r) => [r.id, r.n]));
}

/**
 * Holds the row locks of a release's items from a connection of its own (`select ... for update`
 * in an open transaction). A publish applies every item, then marks the items done: it waits
 * there, every row written in its transaction and nothing committed, until `release`.
 */
export async function lockItems(url: string, releaseId: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('begin');
  await client.query('select id from release_item where release_id = $1 for update', [releaseId]);
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  let held = true;
  return {
    pid: rows[0].pid,
    /** The backends waiting for this lock, with what they run; null while none does. */
    waiting: async (db: pg.Client | pg.Pool) => {
      const waiting = (await db.query<{ pid: number; query: string }>('select pid, query from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [rows[0].pid])).rows;
      return waiting.length > 0 ? waiting : null;
    },
    /** Ends the transaction (once; later calls do nothing). */
    release: async () => {
      if (!held) return;
      held = false;
      await client.query('rollback');
      await client.end();
    },
  };
}
