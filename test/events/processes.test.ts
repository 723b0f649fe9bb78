import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startChildProcess, type SecondApi } from '../auth/second-process.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { openSse, type SseEvent, type SseStream } from '../helpers/sse.js';
import { until } from '../helpers/until.js';
import { buildWorld, createRow, createTable, type Table, type World } from '../contents/fixture.js';

/**
 * The event stream (docs/realtime.md#resuming) across real API processes on one database: an event committed through one process
 * reaches the streams of another; a client whose process is killed (-9) or stopped (SIGTERM)
 * resumes on another process, or on a new one, with no committed event lost or repeated.
 */
let t: TestApi;
let w: World;
let workers: RunningWorkers;
let posts: Table;
const children: SecondApi[] = [];
const streams: SseStream[] = [];

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['outbox']);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
}, 60_000);
afterAll(async () => {
  for (const s of streams) s.close();
  await Promise.all(children.map((c) => c.close()));
  await workers?.stop();
  await t?.close();
});

async function child(): Promise<SecondApi> {
  const started = await startChildProcess(t, {});
  children.push(started);
  return started;
}

async function stream(baseUrl: string, lastEventId?: string): Promise<SseStream> {
  const s = await openSse(`${baseUrl}/v1/${w.projectId}/events/stream?types=contents.created&tableIds=${posts.id}`, {
    authorization: `Bearer ${w.writeKey}`,
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  });
  streams.push(s);
  expect(s.status).toBe(200);
  await until(async () => s.comments.includes('connected'), 10_000, 'the stream to start');
  return s;
}

const rowIdOf = (event: SseEvent) => (JSON.parse(event.data) as { data: { id: string } }).data.id;
const created = async (count: number, title: string) => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await createRow(w, posts.id, { title: `${title} ${i}` }, { status: 'DRAFT' })).id);
  return ids;
};

describe('across API processes', () => {
  it('an event written through one process reaches the streams of the other, both ways', async () => {
    const other = await child();
    const onOther = await stream(other.url);
    const onThis = await stream(t.url);
    const fromThis = await created(2, 'from this');
    const fromOther = (
      await Promise.all([0, 1].map((i) => other.call('POST', `/v1/${w.projectId}/tables/${posts.id}/contents`, { token: w.writeKey, body: { data: { title: `from other ${i}` } } })))
    ).map((res) => res.json.id as string);
    const all = [...fromThis, ...fromOther];
    for (const s of [onOther, onThis]) {
      const got = await s.take(4, 15_000);
      expect(got.map(rowIdOf).sort()).toEqual([...all].sort());
    }
  }, 60_000);

  it('a client of a process killed with -9 resumes on a new one with every event committed meanwhile, once', async () => {
    const doomed = await child();
    const s = await stream(doomed.url);
    const before = await created(2, 'before the kill');
    const seen = await s.take(2, 15_000);
    expect(seen.map(rowIdOf)).toEqual(before);
    await doomed.kill!('SIGKILL');
    await s.ended;
    const meanwhile = await created(3, 'while down');
    const fresh = await child();
    const resumed = await stream(fresh.url, seen[1].id);
    const after = await created(1, 'after the restart');
    const got = await resumed.take(4, 15_000);
    expect(got.map(rowIdOf)).toEqual([...meanwhile, ...after]);
    expect(resumed.events.filter((e) => e.event === 'reset')).toEqual([]);
  }, 90_000);

  it('SIGTERM ends the streams with 503 in the stream; the clients resume elsewhere without loss', async () => {
    const stopping = await child();
    const s = await stream(stopping.url);
    const before = await created(1, 'before SIGTERM');
    const seen = await s.take(1, 15_000);
    expect(seen.map(rowIdOf)).toEqual(before);
    const stopped = stopping.kill!('SIGTERM');
    await s.ended;
    await stopped;
    const last = s.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
    const meanwhile = await created(2, 'after SIGTERM');
    const resumed = await stream(t.url, seen[0].id);
    expect((await resumed.take(2, 15_000)).map(rowIdOf)).toEqual(meanwhile);
  }, 90_000);
});
