import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient, type EventStreamItem, type TabulaClient } from 'tabula/client';
import { loadConfig } from '../../src/config/config.js';
import { sqlOn } from '../../src/db/sql.js';
import { appendToEventFeed } from '../../src/modules/events/feed/feed.sql.js';
import { MAX_QUEUED } from '../../src/modules/events/stream/stream-subscription.js';
import { authorizeProject } from '../../src/auth/project-access.js';
import { streamOwner } from '../../src/auth/stream-access.js';
import { openStream } from '../../src/modules/events/stream/open-stream.js';
import { uuidv7 } from '../../src/shared/ids.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { expectStatus } from '../contents/fixture.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { openSse } from '../helpers/sse.js';
import { until } from '../helpers/until.js';

/**
 * docs/realtime.md#the-stream: when a client hears its stream start (the typed client's `onStarted`, the REST
 * stream's response headers), the stream has joined the live feed, so the event of a write made
 * at that very moment, without waiting for anything else, arrives on it. The API runs in the
 * test's process, so each round also checks that the server's stream was on the feed at the
 * moment the client heard the start (a generator resolver, which tRPC announces before running
 * it, fails that at once). Each case runs many times, so that a window between the two would show. Then the refusals that come before the
 * stream starts, as the typed client receives them, and the release of a stream never read.
 */
let t: TestApi;
let workers: RunningWorkers;
let projectId: string;
let writeKey: string;
let writer: TabulaClient;

/** Streams opened one after another; at most two per credential are open at once (429 beyond). */
const ROUNDS = 20;
const MAX_STREAMS = 2;

beforeAll(async () => {
  t = await startTestApi({ REALTIME_MAX_STREAMS: String(MAX_STREAMS) });
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['outbox']);
  const admin = createTabulaClient({ baseUrl: t.url, token: t.adminToken });
  const workspace = await admin.workspaces.create.mutate({ name: 'Start' });
  projectId = (await admin.projects.create.mutate({ workspaceId: workspace.id, name: 'Site' })).id;
  writeKey = (await admin.apiKeys.create.mutate({ projectId, name: 'writer', permission: 'read_write' })).key;
  writer = createTabulaClient({ baseUrl: t.url, token: writeKey });
  await admin.tables.create.mutate({ projectId, key: 'posts', name: 'Posts' });
  await admin.columns.create.mutate({ projectId, tableId: 'posts', name: 'title', type: 'text' });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const rowIdOf = (item: EventStreamItem) => ('id' in item ? (item.data.data as { id?: string }).id : undefined);
/** The server has let go of every stream (its slot and its place on the feed). */
const released = () => until(async () => t.api.deps.streams.size === 0, 10_000, 'the server to release the stream');

describe('a write at the moment the stream starts', () => {
  it('events.subscribe: the write made in onStarted has its event on the stream, every time', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const received: EventStreamItem[] = [];
      const errors: unknown[] = [];
      const joinedAtStart: number[] = [];
      const at = { write: undefined as Promise<{ id: string }> | undefined };
      const subscription = writer.events.subscribe.subscribe(
        { projectId, types: 'contents.created', tableIds: 'posts' },
        {
          // No wait for anything on the server: the write goes out as the client hears "started".
          onStarted: () => {
            // The API runs in this process: whether its stream is on the feed, at this very moment.
            joinedAtStart.push(t.api.deps.feed.subscriberCount);
            at.write ??= writer.contents.create.mutate({ projectId, tableId: 'posts', data: { title: `tRPC ${round}` }, status: 'DRAFT' });
          },
          onData: (item: EventStreamItem) => received.push(item),
          onError: (error) => errors.push(error),
        },
      );
      try {
        const write = await until(async () => at.write, 10_000, `round ${round}: the subscription to start`);
        const row = await write;
        // A ceiling for the outbox relay on a loaded machine, not an expectation.
        await until(async () => errors.length > 0 || received.some((item) => rowIdOf(item) === row.id), 30_000, `round ${round}: the event of ${row.id}`);
        expect(errors, `round ${round}`).toEqual([]);
        expect(received.map(rowIdOf), `round ${round}`).toEqual([row.id]);
        expect(joinedAtStart, `round ${round}: streams on the feed when onStarted came`).toEqual([1]);
      } finally {
        subscription.unsubscribe();
      }
      await released();
    }
  });

  it('GET /events/stream: the write made once the response headers are in has its event on the stream, every time', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // openSse resolves when the status and headers have arrived, before any body.
      const stream = await openSse(`${t.url}/v1/${projectId}/events/stream?types=contents.created&tableIds=posts`, { authorization: `Bearer ${writeKey}` });
      try {
        expect(stream.status).toBe(200);
        expect(t.api.deps.feed.subscriberCount, `round ${round}: streams on the feed when the headers came`).toBe(1);
        const row = expectStatus(
          await t.call('POST', `/v1/${projectId}/tables/posts/contents`, { token: writeKey, body: { data: { title: `REST ${round}` }, status: 'DRAFT' } }),
          201,
        );
        const [event] = await stream.take(1, 30_000, (e) => e.event === 'contents.created');
        expect((JSON.parse(event.data) as { data: { id: string } }).data.id, `round ${round}`).toBe(row.id);
      } finally {
        stream.close();
      }
      await released();
    }
  });
});

/** Subscribes, and resolves with the first error, or null once an event arrived first. */
function firstError(client: TabulaClient, input: Parameters<TabulaClient['events']['subscribe']['subscribe']>[0]) {
  const state = { started: false, error: null as unknown };
  const subscription = client.events.subscribe.subscribe(input, {
    onStarted: () => (state.started = true),
    onError: (error) => (state.error = error),
  });
  return { state, stop: () => subscription.unsubscribe() };
}

describe('refusals before the stream starts, as the typed client gets them', () => {
  it('400 INVALID_QUERY for an unknown type or table', async () => {
    for (const input of [
      { projectId, types: 'contents.nope' },
      { projectId, tableIds: 'nope' },
      // Blank lists name nothing: refused as a blank `fields` is on lists, not taken as "all".
      { projectId, types: '' },
      { projectId, tableIds: ' , ' },
    ]) {
      const live = firstError(writer, input);
      await until(async () => live.state.error, 10_000, 'the refusal');
      live.stop();
      expect(live.state.error).toMatchObject({ code: 'INVALID_QUERY', status: 400 });
      // tRPC's SSE answer starts before it carries the refusal: onStarted, then onError.
      expect(live.state.started).toBe(true);
    }
    // Nothing of a refused stream stays on the server.
    await released();
  });

  it('401 UNAUTHORIZED for an unknown key, 403 FORBIDDEN for a project the key is not of', async () => {
    const admin = createTabulaClient({ baseUrl: t.url, token: t.adminToken });
    const workspace = await admin.workspaces.create.mutate({ name: 'Elsewhere' });
    const other = (await admin.projects.create.mutate({ workspaceId: workspace.id, name: 'Other' })).id;
    for (const [client, input, expected] of [
      [createTabulaClient({ baseUrl: t.url, token: 'tak_' + 'x'.repeat(43) }), { projectId }, { code: 'UNAUTHORIZED', status: 401 }],
      [writer, { projectId: other }, { code: 'FORBIDDEN', status: 403 }],
    ] as const) {
      const live = firstError(client, input);
      await until(async () => live.state.error, 10_000, 'the refusal');
      live.stop();
      expect(live.state.error).toMatchObject(expected);
    }
    await released();
  });

  it('429 RATE_LIMITED beyond REALTIME_MAX_STREAMS open streams of the credential', async () => {
    const open = Array.from({ length: MAX_STREAMS }, () => firstError(writer, { projectId }));
    // Started means counted: the server claimed each stream's slot before it said so.
    await until(async () => open.every((live) => live.state.started), 10_000, 'the streams to start');
    const extra = firstError(writer, { projectId });
    await until(async () => extra.state.error, 10_000, 'the refusal');
    extra.stop();
    expect(extra.state.error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(open.map((live) => live.state.error)).toEqual([null, null]);
    for (const live of open) live.stop();
    await released();
  });
});

describe('refusals before the stream starts, as HTTP answers', () => {
  /** `GET /trpc/events.subscribe` as an EventSource asks for it, read whole. */
  const subscribe = async (token: string, input: Record<string, unknown>) => {
    const url = `${t.url}/trpc/events.subscribe?input=${encodeURIComponent(JSON.stringify(input))}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    return { status: res.status, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after'), body: await res.text() };
  };

  it('carry the refusal’s status, with the error event that the typed client reads', async () => {
    for (const [token, input, status, code] of [
      ['tak_' + 'x'.repeat(43), { projectId }, 401, 'UNAUTHORIZED'],
      [writeKey, { projectId, types: '' }, 400, 'INVALID_QUERY'],
    ] as const) {
      const answer = await subscribe(token, input);
      expect(answer.status).toBe(status);
      expect(answer.type).toMatch(/^text\/event-stream/);
      expect(answer.body).toContain('event: serialized-error');
      expect(answer.body).toContain(`"code":"${code}"`);
    }
    await released();
  });

  it('429 with Retry-After beyond REALTIME_MAX_STREAMS; an accepted stream is a 200', async () => {
    const open = Array.from({ length: MAX_STREAMS }, () => firstError(writer, { projectId }));
    await until(async () => open.every((live) => live.state.started), 10_000, 'the streams to start');
    const answer = await subscribe(writeKey, { projectId });
    expect(answer.status).toBe(429);
    expect(answer.retryAfter).toBe('5');
    expect(answer.body).toContain('"code":"RATE_LIMITED"');
    for (const live of open) live.stop();
    await released();
    const accepted = new AbortController();
    const res = await fetch(`${t.url}/trpc/events.subscribe?input=${encodeURIComponent(JSON.stringify({ projectId }))}`, {
      headers: { authorization: `Bearer ${writeKey}`, accept: 'text/event-stream' },
      signal: accepted.signal,
    });
    expect(res.status).toBe(200);
    accepted.abort();
    await released();
  });
});

describe('a stream that is not read', () => {
  /** A stream opened as the routes open it, for a caller that is not reading it yet. */
  async function unread(signal: AbortSignal) {
    const { deps } = t.api;
    const headers = { authorization: `Bearer ${writeKey}` };
    const principal = await deps.credentials.resolve(headers.authorization);
    const access = await authorizeProject(deps, deps.orm.em.fork(), principal, headers, projectId, 'read');
    return openStream(deps, { owner: { ...streamOwner(deps, access, headers), recheck: async () => undefined }, projectId, filter: { types: [], tableIds: [] } }, signal);
  }

  it('leaves the feed and frees its slot when its client leaves first, or when it is closed', async () => {
    const { deps } = t.api;
    const slots = async () => Number((await deps.pool.query<{ n: string }>('select count(*) as n from event_stream')).rows[0].n);

    await until(async () => (await slots()) === 0, 10_000, 'the earlier streams’ rows to go');
    const left = new AbortController();
    const abandoned = await unread(left.signal);
    const closed = await unread(new AbortController().signal);
    expect([deps.streams.size, await slots()]).toEqual([2, 2]);
    left.abort();
    await closed.close();
    await released();
    await until(async () => (await slots()) === 0, 10_000, 'the stream rows to go');
    // Off the feed: reading them now ends at once instead of waiting for events.
    for (const stream of [abandoned, closed]) {
      const batches = [];
      for await (const batch of stream.batches) batches.push(batch);
      expect(batches).toEqual([]);
    }
  });

  it(`buffers what arrives from the moment it opens, and ends with 503 past ${MAX_QUEUED} waiting events`, async () => {
    const stream = await unread(new AbortController().signal);
    // More events than a stream may hold, appended as the outbox relay appends them.
    const count = MAX_QUEUED + 1;
    const ids = Array.from({ length: count }, () => uuidv7());
    const payloads = ids.map((id) => JSON.stringify({ id, type: 'tables.updated', projectId, tableId: null, createdAt: new Date().toISOString(), data: { id: 'posts' } }));
    await sqlOn(t.api.deps.pool)(appendToEventFeed(ids, Array(count).fill(projectId), payloads));
    const [{ head }] = (await t.api.deps.pool.query<{ head: string }>('select max(position)::text as head from event_feed')).rows;
    await until(async () => t.api.deps.feed.head >= Number(head), 30_000, 'the feed to read the events');
    await expect(stream.batches[Symbol.asyncIterator]().next()).rejects.toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
    await stream.close();
    await released();
  });
});
