import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient, type EventStreamItem, type TabulaClient } from 'tabula/client';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';

/** docs/realtime.md#typed-client: `events.subscribe` through the published client, over SSE. */
let t: TestApi;
let workers: RunningWorkers;
let admin: TabulaClient;
let projectId: string;
let writeKey: string;
let readKey: string;

/** What onData receives, as the client publishes it (the callback below type-checks against it). */
type Received = EventStreamItem;

beforeAll(async () => {
  t = await startTestApi();
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['outbox']);
  admin = createTabulaClient({ baseUrl: t.url, token: t.adminToken });
  const workspace = await admin.workspaces.create.mutate({ name: 'Live' });
  projectId = (await admin.projects.create.mutate({ workspaceId: workspace.id, name: 'Site' })).id;
  writeKey = (await admin.apiKeys.create.mutate({ projectId, name: 'writer', permission: 'read_write' })).key;
  readKey = (await admin.apiKeys.create.mutate({ projectId, name: 'reader', permission: 'read' })).key;
  await admin.tables.create.mutate({ projectId, key: 'posts', name: 'Posts' });
  await admin.columns.create.mutate({ projectId, tableId: 'posts', name: 'title', type: 'text' });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

/** Subscribes and collects what arrives until `stop` is called. */
function collect(client: TabulaClient, input: Parameters<TabulaClient['events']['subscribe']['subscribe']>[0]) {
  const received: Received[] = [];
  const errors: unknown[] = [];
  let started = false;
  const subscription = client.events.subscribe.subscribe(input, {
    onStarted: () => (started = true),
    onData: (value: Received) => received.push(value),
    onError: (error) => errors.push(error),
  });
  return { received, errors, started: () => started, stop: () => subscription.unsubscribe() };
}

describe('events.subscribe', () => {
  it('delivers typed, tracked envelopes in commit order, filtered as asked', async () => {
    const client = createTabulaClient({ baseUrl: t.url, token: writeKey });
    const live = collect(client, { projectId, types: 'contents.created,contents.published', tableIds: 'posts' });
    // Once the client hears "started", the stream is on the server's feed: every write from then
    // on has its event on it (test/events/stream-start.test.ts).
    await until(async () => live.started(), 5_000, 'the subscription to start');
    const one = await client.contents.create.mutate({ projectId, tableId: 'posts', data: { title: 'One' }, status: 'PUBLISHED' });
    const two = await client.contents.create.mutate({ projectId, tableId: 'posts', data: { title: 'Two' }, status: 'DRAFT' });
    // A ceiling for the relay on a loaded machine (the full suite runs two files at once beside browsers).
    await until(async () => live.received.length >= 3, 30_000, 'three events');
    live.stop();
    const events = live.received.map((item) => {
      if (!('id' in item)) throw new Error('unexpected reset');
      // A tracked event: its id, and the same envelope as the REST stream and webhooks.
      expect(item.id).toBe(item.data.id);
      return `${item.data.type} ${(item.data.data as { id: string }).id}`;
    });
    expect(events).toEqual([`contents.created ${one.id}`, `contents.published ${one.id}`, `contents.created ${two.id}`]);
    expect(live.errors).toEqual([]);
  });

  it('hides non-public rows from read keys and resets when asked to resume after an unknown event', async () => {
    const reader = createTabulaClient({ baseUrl: t.url, token: readKey });
    const live = collect(reader, { projectId, lastEventId: '0190b0a0-0000-7000-8000-00000000c0de' });
    await until(async () => live.received.length >= 1, 5_000, 'the reset');
    expect(live.received[0]).toEqual({ type: 'reset' });
    const writer = createTabulaClient({ baseUrl: t.url, token: writeKey });
    const hidden = await writer.contents.create.mutate({ projectId, tableId: 'posts', data: { title: 'Hidden' }, status: 'DRAFT' });
    const shown = await writer.contents.create.mutate({ projectId, tableId: 'posts', data: { title: 'Shown' }, status: 'PUBLISHED' });
    await until(async () => live.received.length >= 3, 30_000, 'the public events');
    live.stop();
    const ids = live.received.slice(1).map((item) => ('id' in item ? (item.data.data as { id: string }).id : 'reset'));
    expect(ids).toEqual([shown.id, shown.id]);
    expect(ids).not.toContain(hidden.id);
  });

  it('refuses a read key of another project before the stream starts (403)', async () => {
    const workspace = await admin.workspaces.create.mutate({ name: 'Elsewhere' });
    const other = (await admin.projects.create.mutate({ workspaceId: workspace.id, name: 'Other' })).id;
    const reader = createTabulaClient({ baseUrl: t.url, token: readKey });
    const live = collect(reader, { projectId: other });
    await until(async () => live.errors.length > 0, 5_000, 'the refusal');
    live.stop();
    expect(live.errors[0]).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });
});
