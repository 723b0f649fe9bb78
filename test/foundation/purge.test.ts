import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';

/** Deletes answer 204 at once (docs/concepts.md#workspaces-projects-and-members); the purge worker then removes the rows, in the background. */
let t: TestApi;
let workers: RunningWorkers;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApi();
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['purge']);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await workers?.stop();
  await t?.close();
});

const count = async (sql: string, values: unknown[]) => Number((await db.query(sql, values)).rows[0].n);

async function world() {
  const ws = await t.call('POST', '/v1/workspaces', { body: { name: 'Purge' } });
  const project = await t.call('POST', `/v1/workspaces/${ws.json.id}/projects`, { body: { name: 'P' } });
  const pid = project.json.id as string;
  const table = await t.call('POST', `/v1/${pid}/tables`, { body: { key: 'items', name: 'Items' } });
  await t.call('POST', `/v1/${pid}/tables/items/columns`, { body: { name: 'title', type: 'text' } });
  await t.call('POST', `/v1/${pid}/tables/items/columns`, { body: { name: 'note', type: 'text' } });
  for (let i = 0; i < 5; i++) {
    const row = await t.call('POST', `/v1/${pid}/tables/items/contents`, { body: { data: { title: `t${i}`, note: 'n' } } });
    expect(row.status, row.text).toBe(201);
  }
  return { workspaceId: ws.json.id as string, projectId: pid, tableId: table.json.id as string };
}

describe('background purges', () => {
  it('a deleted workspace: 204, unreachable at once, then every row below it is gone', async () => {
    const w = await world();
    expect((await t.call('DELETE', `/v1/workspaces/${w.workspaceId}`)).status).toBe(204);
    expect((await t.call('GET', `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}`)).status).toBe(404);
    await until(async () => (await count('select count(*) as n from workspace where id = $1', [w.workspaceId])) === 0, 30_000, 'the purge', 100);
    expect(await count('select count(*) as n from project where id = $1', [w.projectId])).toBe(0);
    expect(await count('select count(*) as n from contents where table_id = $1', [w.tableId])).toBe(0);
    expect(await count('select count(*) as n from content_table where id = $1', [w.tableId])).toBe(0);
  });

  it('a deleted table: its contents and columns go; other tables stay', async () => {
    const w = await world();
    const other = await t.call('POST', `/v1/${w.projectId}/tables`, { body: { key: 'keep', name: 'Keep' } });
    expect((await t.call('DELETE', `/v1/${w.projectId}/tables/items`)).status).toBe(204);
    expect((await t.call('GET', `/v1/${w.projectId}/tables/items/contents`)).status).toBe(404);
    await until(async () => (await count('select count(*) as n from content_table where id = $1', [w.tableId])) === 0, 30_000, 'the purge', 100);
    expect(await count('select count(*) as n from contents where table_id = $1', [w.tableId])).toBe(0);
    expect(await count('select count(*) as n from content_column where table_id = $1', [w.tableId])).toBe(0);
    expect((await t.call('GET', `/v1/${w.projectId}/tables/${other.json.id}`)).status).toBe(200);
  });

  it('a deleted column: hidden at once, its values removed from every row, then the name is free again', async () => {
    const w = await world();
    expect((await t.call('DELETE', `/v1/${w.projectId}/tables/items/columns/note`)).status).toBe(204);
    const rows = await t.call('GET', `/v1/${w.projectId}/tables/items/contents`);
    expect(rows.json.list.every((r: { data: Record<string, unknown> }) => !('note' in r.data))).toBe(true);
    await until(async () => (await count(`select count(*) as n from content_column where table_id = $1 and name = 'note'`, [w.tableId])) === 0, 30_000, 'the purge', 100);
    expect(await count(`select count(*) as n from contents where table_id = $1 and data ? 'note'`, [w.tableId])).toBe(0);
    expect(await count(`select count(*) as n from contents where table_id = $1 and data ? 'title'`, [w.tableId])).toBe(5);
    const again = await t.call('POST', `/v1/${w.projectId}/tables/items/columns`, { body: { name: 'note', type: 'integer' } });
    expect(again.status, again.text).toBe(201);
  });

  it('replaying a purge job is harmless', async () => {
    const w = await world();
    await t.call('DELETE', `/v1/workspaces/${w.workspaceId}`);
    await until(async () => (await count('select count(*) as n from workspace where id = $1', [w.workspaceId])) === 0, 30_000, 'the purge', 100);
    const replayed = [
      await t.api.deps.boss.send('purge', { kind: 'workspace', id: w.workspaceId }),
      await t.api.deps.boss.send('purge', { kind: 'project', id: w.projectId }),
    ];
    const other = await world();
    // Both replays have run (and succeeded) before the other world is counted.
    await until(async () => {
      const { rows } = await db.query(`select count(*)::int as n from pgboss.job where id = any($1::uuid[]) and state = 'completed'`, [replayed]);
      return rows[0].n === replayed.length;
    }, 30_000, 'the replayed purge jobs to complete', 100);
    expect(await count('select count(*) as n from contents where table_id = $1', [other.tableId])).toBe(5);
  });

  it('a backlog drains at once: purges queued while no worker ran are done right after one starts', async () => {
    await workers.stop();
    const tables: string[] = [];
    for (let i = 0; i < 9; i++) {
      const w = await world();
      expect((await t.call('DELETE', `/v1/${w.projectId}/tables/items`)).status).toBe(204);
      tables.push(w.tableId);
    }
    workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['purge']);
    // Without bursting, each fetch after the first waited for the 30 s backstop poll.
    await until(async () => (await count('select count(*) as n from content_table where id = any($1)', [tables])) === 0, 10_000, 'the backlog of purges', 100);
  });
});
