import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { sqlOn } from '../../src/db/sql.js';
import { trimFeed } from '../../src/modules/events/feed/feed-retention.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { openSse, type SseEvent, type SseStream } from '../helpers/sse.js';
import { until } from '../helpers/until.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, postRow, putRow, type Table, type World } from '../contents/fixture.js';

/**
 * docs/realtime.md over REST: `GET /v1/{projectId}/events/stream` with a real API, the outbox relay
 * worker and a streaming HTTP client: envelopes, filters, visibility per credential, resumption,
 * reset, limits, revocation and heartbeats.
 */
let t: TestApi;
let w: World;
let workers: RunningWorkers;
let posts: Table;
let db: pg.Pool;
const open: SseStream[] = [];

beforeAll(async () => {
  t = await startTestApi({ REALTIME_MAX_STREAMS: '3', REALTIME_HEARTBEAT_MS: '300', REALTIME_RECHECK_MS: '500' });
  w = await buildWorld(t);
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['outbox', 'request-logs']);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  db = new pg.Pool({ connectionString: t.db.url, max: 2 });
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await db?.end();
  await workers?.stop();
  await t?.close();
});

const streamUrl = (query = '') => `${t.url}/v1/${w.projectId}/events/stream${query}`;
async function stream(token: string, query = '', headers: Record<string, string> = {}): Promise<SseStream> {
  const opened = await openSse(streamUrl(query), { authorization: `Bearer ${token}`, ...headers });
  open.push(opened);
  if (opened.status === 200) await until(async () => opened.comments.includes('connected'), 5_000, 'the stream to start');
  return opened;
}
const parsed = (event: SseEvent) => JSON.parse(event.data) as { id: string; type: string; projectId: string; createdAt: string; sequence: number; data: Record<string, unknown> };
const ofRow = (id: string) => (event: SseEvent) => event.event !== 'reset' && (parsed(event).data as { id?: string }).id === id;

describe('the stream', () => {
  it('carries each committed event as `id`, `event` and the webhook body', async () => {
    const s = await stream(w.writeKey);
    expect(s.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const row = await createRow(w, posts.id, { title: 'Hello' }, { status: 'PUBLISHED' });
    const [created, published] = await s.take(2, 10_000, ofRow(row.id));
    expect([created.event, published.event]).toEqual(['contents.created', 'contents.published']);
    const body = parsed(created);
    expect(created.id).toBe(body.id);
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'data', 'id', 'projectId', 'sequence', 'type']);
    expect(body).toMatchObject({ type: 'contents.created', projectId: w.projectId, data: { id: row.id, status: 'PUBLISHED', data: { title: 'Hello' }, hasDraft: false } });
    expect(parsed(published).sequence).toBeGreaterThan(body.sequence);
  });

  it('filters by types and tableIds (ids or keys); tables events pass a tableIds filter', async () => {
    const other = await createTable(w, [{ name: 'name', type: 'text' }]);
    const onlyPublished = await stream(w.writeKey, '?types=contents.published');
    const onlyOther = await stream(w.writeKey, `?tableIds=${other.key}`);
    const a = await createRow(w, posts.id, { title: 'A' }, { status: 'PUBLISHED' });
    const b = await createRow(w, other.id, { name: 'B' }, { status: 'DRAFT' });
    const marker = await createRow(w, other.id, { name: 'end' }, { status: 'PUBLISHED' });
    await onlyPublished.take(1, 10_000, ofRow(marker.id));
    await onlyOther.take(2, 10_000, ofRow(marker.id));
    expect(onlyPublished.events.map((e) => `${e.event} ${(parsed(e).data as { id: string }).id}`)).toEqual([`contents.published ${a.id}`, `contents.published ${marker.id}`]);
    expect(onlyOther.events.filter((e) => ofRow(a.id)(e))).toEqual([]);
    expect(onlyOther.events.filter(ofRow(b.id)).map((e) => e.event)).toEqual(['contents.created']);
    onlyPublished.close();
    onlyOther.close();
  });

  it('answers 400 for an unknown type or table, 401 and 403 as JSON before the stream starts', async () => {
    expect((await stream(w.writeKey, '?types=contents.nope')).status).toBe(400);
    expect((await stream(w.writeKey, '?tableIds=nope')).status).toBe(400);
    // A NUL (which no table key can hold) is an unknown table too, not a database error.
    expect((await stream(w.writeKey, '?tableIds=a%00b')).status).toBe(400);
    const unknown = await stream('tak_' + 'x'.repeat(43));
    expect(unknown.status).toBe(401);
    expect(unknown.error).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const other = expectStatus(await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Other' } }), 201);
    const forbidden = await openSse(`${t.url}/v1/${other.id}/events/stream`, { authorization: `Bearer ${w.readKey}` });
    expect(forbidden.status).toBe(403);
  });

  it('refuses empty, repeated and bracketed parameters with 400 INVALID_QUERY before the stream starts, as lists do', async () => {
    for (const query of [
      '?types=',
      '?types=%20,',
      '?tableIds=',
      '?types=contents.created&types=contents.updated',
      `?tableIds=${posts.key}&tableIds=${posts.key}`,
      '?lastEventId=a&lastEventId=b',
      '?lastEventId=',
      '?types[]=contents.created',
      '?tableIds[x]=posts',
    ]) {
      const refused = await stream(w.writeKey, query);
      expect({ query, status: refused.status, code: (refused.error as { error?: { code?: string } } | null)?.error?.code }).toEqual({
        query,
        status: 400,
        code: 'INVALID_QUERY',
      });
    }
  });
});

describe('order', () => {
  it('delivers a burst of writes once each, in feed order, across a power of ten of positions', async () => {
    // Positions 99 → 100 (or 999 → 1000) once sorted as text, and sent events again.
    const [{ head }] = (await db.query<{ head: string }>('select coalesce(max(position), 0)::text as head from event_feed')).rows;
    const burst = 10 ** String(Number(head) + 1).length - Number(head) + 20;
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const s = await stream(w.writeKey, `?tableIds=${table.id}`);
    const created = await Promise.all(Array.from({ length: burst }, (_, i) => postRow(w, table.id, { data: { title: `burst ${i}` }, status: 'DRAFT' })));
    expect(created.every((res) => res.status === 201)).toBe(true);
    const got = await s.take(burst, 15_000, (e) => e.event.startsWith('contents.'));
    // One more row after the burst: the stream sends the feed in order, so once its event is
    // here, whatever the stream would send again or out of order from the burst is here too.
    const marker = await createRow(w, table.id, { title: 'after the burst' }, { status: 'DRAFT' });
    const [last] = await s.take(1, 10_000, ofRow(marker.id));
    const feed = (await db.query<{ id: string }>(`select id from event_feed where payload->>'tableId' = $1 and payload->>'type' like 'contents.%' order by position`, [table.id])).rows.map((r) => r.id);
    // (The table's own tables.created may arrive too: tableIds narrows contents events only.)
    expect(s.events.filter((e) => e.event.startsWith('contents.')).map((e) => e.id)).toEqual(feed);
    expect([...got, last].map((e) => e.id)).toEqual(feed);
    s.close();
  });
});

describe('visibility', () => {
  it('read keys get PUBLISHED rows only, without hasDraft; leaving PUBLISHED is contents.unpublished with only id and tableId', async () => {
    const reader = await stream(w.readKey);
    const writer = await stream(w.writeKey);
    const row = await createRow(w, posts.id, { title: 'Secret draft' }, { status: 'DRAFT' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Still secret' } }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { status: 'PUBLISHED', data: { title: 'Out' } }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Draft of out' }, draft: true }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { status: 'DRAFT' }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Secret again' } }), 200);
    expect((await t.call('DELETE', contentsPath(w, posts.id, row.id), { token: w.writeKey })).status).toBe(204);

    const all = await writer.take(8, 10_000, ofRow(row.id));
    expect(all.map((e) => e.event)).toEqual([
      'contents.created',
      'contents.updated',
      'contents.updated',
      'contents.published',
      'contents.updated',
      'contents.unpublished',
      'contents.updated',
      'contents.deleted',
    ]);
    const seen = await reader.take(3, 10_000, (e) => ofRow(row.id)(e) || (e.event === 'contents.unpublished' && (parsed(e).data as { id: string }).id === row.id));
    // A published row after the delete: the reader's stream follows the feed in order, so once
    // this row's event is here, every event of `row` has been sent to the reader or held back.
    const marker = await createRow(w, posts.id, { title: 'Public marker' }, { status: 'PUBLISHED' });
    await reader.take(1, 10_000, ofRow(marker.id));
    const mine = reader.events.filter((e) => (parsed(e).data as { id?: string }).id === row.id);
    expect(mine.map((e) => e.event)).toEqual(['contents.updated', 'contents.published', 'contents.unpublished']);
    expect(seen.map((e) => e.id)).toEqual(mine.map((e) => e.id));
    for (const event of mine.slice(0, 2)) {
      expect(parsed(event).data).toMatchObject({ id: row.id, status: 'PUBLISHED', data: { title: 'Out' } });
      expect(parsed(event).data).not.toHaveProperty('hasDraft');
    }
    expect(parsed(mine[2]).data).toEqual({ id: row.id, tableId: posts.id });
    expect(JSON.stringify(reader.events)).not.toContain('ecret');
    expect(JSON.stringify(reader.events)).not.toContain('Draft of out');
    reader.close();
    writer.close();
  });
});

describe('resumption', () => {
  it('resumes after Last-Event-ID (or lastEventId) with nothing lost or repeated', async () => {
    const first = await stream(w.writeKey, `?tableIds=${posts.id}`);
    const rows: { id: string }[] = [];
    for (let i = 0; i < 3; i++) rows.push(await createRow(w, posts.id, { title: `r${i}` }, { status: 'DRAFT' }));
    const got = await first.take(3, 10_000, (e) => e.event === 'contents.created' && rows.some((r) => ofRow(r.id)(e)));
    first.close();
    const missed: { id: string }[] = [];
    for (let i = 3; i < 6; i++) missed.push(await createRow(w, posts.id, { title: `r${i}` }, { status: 'DRAFT' }));
    for (const resume of [{ header: true }, { header: false }]) {
      const last = got[2].id!;
      const again = resume.header ? await stream(w.writeKey, `?tableIds=${posts.id}`, { 'last-event-id': last }) : await stream(w.writeKey, `?tableIds=${posts.id}&lastEventId=${last}`);
      const replayed = await again.take(missed.length, 10_000, (e) => missed.some((r) => ofRow(r.id)(e)));
      expect(replayed.map((e) => (parsed(e).data as { id: string }).id)).toEqual(missed.map((r) => r.id));
      const live = await createRow(w, posts.id, { title: 'live' }, { status: 'DRAFT' });
      await again.take(1, 10_000, ofRow(live.id));
      const ids = again.events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(again.events.some((e) => got.some((g) => g.id === e.id))).toBe(false);
      missed.push(live);
      again.close();
    }
  });

  it('starts with `event: reset` when the event is no longer retained, then goes on live', async () => {
    const s = await stream(w.writeKey);
    const row = await createRow(w, posts.id, { title: 'old' }, { status: 'DRAFT' });
    const [old] = await s.take(1, 10_000, ofRow(row.id));
    s.close();
    // Retention with nothing kept: what the worker does to events past a day and 10,000 newer ones.
    await until(async () => (await trimFeed(sqlOn(db), 100_000, 0, 0)) >= 0 && (await db.query('select 1 from event_feed where id = $1', [old.id])).rowCount === 0, 5_000, 'the trim');
    const again = await stream(w.writeKey, '', { 'last-event-id': old.id! });
    const live = await createRow(w, posts.id, { title: 'new' }, { status: 'DRAFT' });
    await again.take(1, 10_000, ofRow(live.id));
    expect(again.events[0]).toEqual({ id: undefined, event: 'reset', data: '{}' });
    expect(again.events.slice(1).every(ofRow(live.id))).toBe(true);
    again.close();
  });
});

describe('limits and credentials', () => {
  it('refuses a stream beyond REALTIME_MAX_STREAMS per credential with 429, and counts a closed one out', async () => {
    const key = expectStatus(await t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name: 'limited', permission: 'read' } }), 201).key as string;
    const streams = [await stream(key), await stream(key), await stream(key)];
    const fourth = await stream(key);
    expect(fourth.status).toBe(429);
    expect(fourth.error).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    streams[0].close();
    await until(async () => (await openSse(streamUrl(), { authorization: `Bearer ${key}` }).then((s) => (open.push(s), s.status))) === 200, 5_000, 'a slot to free up');
    for (const s of streams) s.close();
  });

  it('closes the streams of a deleted, deactivated or rotated-out key within 5 s, saying why', async () => {
    const cases: [string, (id: string) => Promise<unknown>][] = [
      ['deleted', (id) => t.call('DELETE', `/v1/${w.projectId}/api-keys/${id}`)],
      ['deactivated', (id) => t.call('PUT', `/v1/${w.projectId}/api-keys/${id}`, { body: { active: false } })],
      ['rotated', (id) => t.call('POST', `/v1/${w.projectId}/api-keys/${id}/rotate`, { body: { graceSeconds: 0 } })],
    ];
    for (const [name, revoke] of cases) {
      const created = expectStatus(await t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name, permission: 'read' } }), 201);
      const s = await stream(created.key);
      const started = Date.now();
      await revoke(created.id);
      await s.ended;
      expect(Date.now() - started, name).toBeLessThan(5_000);
      const error = s.events.at(-1)!;
      expect(error.event, name).toBe('error');
      expect(JSON.parse(error.data)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
  });

  it('sends a heartbeat comment while idle, and counts open streams and sent events in /metrics', async () => {
    const s = await stream(w.readKey);
    await until(async () => s.comments.filter((c) => c === 'ping').length >= 2, 5_000, 'two heartbeats');
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(Number(/^tabula_realtime_streams (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/^tabula_realtime_events_sent_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    s.close();
  });

  it('takes the key from access_token for EventSource, and keeps it out of the request logs', async () => {
    const s = await openSse(streamUrl(`?access_token=${w.readKey}&types=contents.published,tables.created`), {});
    open.push(s);
    expect(s.status).toBe(200);
    const row = await createRow(w, posts.id, { title: 'By query' }, { status: 'PUBLISHED' });
    await s.take(1, 10_000, ofRow(row.id));
    s.close();
    const logged = async () =>
      (expectStatus(await t.call('GET', `/v1/${w.projectId}/logs?size=1000`), 200).list as { path: string }[]).filter((entry) => entry.path.includes('/events/stream'));
    await until(async () => (await logged()).some((entry) => entry.path.endsWith('?types=contents.published%2Ctables.created')), 15_000, 'the stream’s request log entry');
    expect(JSON.stringify(await logged())).not.toContain(w.readKey);
  });
});
