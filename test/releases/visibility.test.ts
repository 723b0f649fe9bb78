import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { openSse, type SseEvent, type SseStream } from '../helpers/sse.js';
import { until } from '../helpers/until.js';
import { buildWorld, createRow, createTable, expectCreated, expectStatus, getRow, list, putRow, type Table, type World } from '../contents/fixture.js';
import { lockItems } from './fixture.js';

/**
 * docs/releases.md#publishing: until its transaction commits, nothing of a release shows on any
 * read surface (read one, lists with totals from the list cache, search, the event stream);
 * once the publish has answered, all of it does. The publish is held open, every row written, by
 * locks taken elsewhere on its items, so "before the commit" is a state the test reads at leisure.
 */
let t: TestApi;
let w: World;
let posts: Table;
let notes: Table;
let relay: RunningWorkers;
let stream: SseStream;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  notes = await createTable(w, [{ name: 'title', type: 'text' }]);
  relay = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['outbox']);
});
afterAll(async () => {
  stream?.close();
  await relay?.stop();
  await t?.close();
});

const read = async (id: string) => {
  const res = await getRow(w, posts.id, id, w.readKey);
  return res.status === 200 ? (res.json.data.title as string) : res.status;
};
/** A read key's list (PUBLISHED rows) with its total, read twice: the second answer is the list cache's. */
async function listed(query: Record<string, unknown> = {}) {
  const first = await list(w, posts.id, w.readKey, { sort: [{ i: 'title', o: 'asc' }], ...query });
  const second = await list(w, posts.id, w.readKey, { sort: [{ i: 'title', o: 'asc' }], ...query });
  expect(second).toEqual(first);
  return { titles: first.list.map((r) => r.data!.title), total: first.pagination.total };
}
const eventOf = (e: SseEvent) => {
  const payload = JSON.parse(e.data) as { data: { id?: string; releaseId?: string } };
  return `${e.event} ${payload.data.id ?? payload.data.releaseId}`;
};

describe('a release before and after its commit', () => {
  it('reads, lists, search and the stream show the old rows until the commit, the new ones once the publish answered', { timeout: 90_000 }, async () => {
    stream = await openSse(`${t.url}/v1/${w.projectId}/events/stream`, { authorization: `Bearer ${w.writeKey}` });
    expect(stream.status).toBe(200);
    const alpha = await createRow(w, posts.id, { title: 'Alpha original' }, { status: 'PUBLISHED' });
    expectStatus(await putRow(w, posts.id, alpha.id, { data: { title: 'Alpha zanzibar' }, draft: true }), 200);
    const bravo = await createRow(w, posts.id, { title: 'Bravo live' }, { status: 'PUBLISHED' });
    const lima = await createRow(w, posts.id, { title: 'Lima draft' }, { status: 'DRAFT' });
    const release = expectCreated(await t.call('POST', `/v1/${w.projectId}/releases`, { token: w.writeKey, body: { name: 'Visible at once' } }));
    for (const [row, action] of [[alpha, 'publishDraft'], [bravo, 'unpublish'], [lima, 'publish']] as const) {
      expectCreated(await t.call('POST', `/v1/${w.projectId}/releases/${release.id}/items`, { token: w.writeKey, body: { tableId: posts.id, contentsId: row.id, action } }));
    }
    // The set-up's own events, in the order written: once the last has arrived, what follows is the release's.
    const [setUp] = await stream.take(1, 30_000, (e) => eventOf(e) === `contents.created ${lima.id}`);
    const since = () => stream.events.slice(stream.events.indexOf(setUp) + 1);
    const before = { reads: ['Alpha original', 'Bravo live', 404], list: { titles: ['Alpha original', 'Bravo live'], total: 2 } };
    expect([await read(alpha.id), await read(bravo.id), await read(lima.id)]).toEqual(before.reads);
    expect(await listed()).toEqual(before.list);

    // The publish applies all three rows, then waits to mark its items done: its transaction is open.
    const lock = await lockItems(t.db.url, release.id);
    let answer: Promise<Awaited<ReturnType<typeof t.call>>>;
    let marker: { id: string };
    try {
      answer = t.call('POST', `/v1/${w.projectId}/releases/${release.id}/publish`, { token: w.writeKey });
      const [blocked] = await until(() => lock.waiting(t.api.deps.pool), 30_000, 'the publish to apply its items');
      expect(blocked.query).toMatch(/update release_item/);

      expect([await read(alpha.id), await read(bravo.id), await read(lima.id)]).toEqual(before.reads);
      expect(await listed()).toEqual(before.list);
      expect(await listed({ search: 'zanzibar' })).toEqual({ titles: [], total: 0 });
      expect(await listed({ search: 'original' })).toEqual({ titles: ['Alpha original'], total: 1 });
      // A write committed meanwhile reaches the stream; nothing of the release comes before it.
      marker = await createRow(w, notes.id, { title: 'marker' });
      const [seen] = await stream.take(1, 30_000, (e) => eventOf(e) === `contents.created ${marker.id}`);
      expect(since().slice(0, since().indexOf(seen)).map(eventOf)).toEqual([]);
    } finally {
      await lock.release();
    }
    expect(expectStatus(await answer, 200).status).toBe('published');

    expect([await read(alpha.id), await read(bravo.id), await read(lima.id)]).toEqual(['Alpha zanzibar', 404, 'Lima draft']);
    expect(await listed()).toEqual({ titles: ['Alpha zanzibar', 'Lima draft'], total: 2 });
    expect(await listed({ search: 'zanzibar' })).toEqual({ titles: ['Alpha zanzibar'], total: 1 });
    expect(await listed({ search: 'original' })).toEqual({ titles: [], total: 0 });
    const expected = [
      `contents.updated ${alpha.id}`,
      `contents.published ${alpha.id}`,
      `contents.updated ${bravo.id}`,
      `contents.unpublished ${bravo.id}`,
      `contents.updated ${lima.id}`,
      `contents.published ${lima.id}`,
      `release.published ${release.id}`,
    ];
    await until(() => stream.events.map(eventOf).includes(`release.published ${release.id}`), 30_000, 'release.published on the stream');
    expect(since().map(eventOf).filter((e) => !e.endsWith(marker.id))).toEqual(expected);
  });
});
