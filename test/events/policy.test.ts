import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient, type EventStreamItem } from 'tabula/client';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { openSse, type SseEvent, type SseStream } from '../helpers/sse.js';
import { until } from '../helpers/until.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, putRow, roleKey, type Table, type World } from '../contents/fixture.js';

/**
 * docs/roles.md#events: the realtime stream (REST and `events.subscribe`) of a key holding a custom
 * role shows the events of the rows its rules read, with the columns they read; a row that leaves
 * its view arrives as `contents.unpublished`; a `where` through a reference is decided by the
 * database; a changed role applies to the open stream within a few seconds.
 */
let t: TestApi;
let w: World;
let workers: RunningWorkers;
let posts: Table;
let authors: Table;
let others: Table;
const open: SseStream[] = [];
const stops: (() => void)[] = [];

const RECHECK_MS = 300;

beforeAll(async () => {
  t = await startTestApi({ REALTIME_RECHECK_MS: String(RECHECK_MS) });
  w = await buildWorld(t);
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['outbox']);
  authors = await createTable(w, [
    { name: 'name', type: 'text' },
    { name: 'team', type: 'text' },
  ]);
  posts = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'owner', type: 'text' },
    { name: 'secret', type: 'text' },
    { name: 'author', type: 'reference', settings: { table: authors.id } },
  ]);
  others = await createTable(w, [{ name: 'name', type: 'text' }]);
});
afterAll(async () => {
  for (const stream of open) stream.close();
  for (const stop of stops) stop();
  await workers?.stop();
  await t?.close();
});

/** A custom role with `rules`, and an API key holding it. */
async function keyWithRole(name: string, rules: unknown[]) {
  const { key, id, roleId } = await roleKey(w, rules, name);
  return { roleId, keyId: id, secret: key };
}

async function sse(token: string): Promise<SseStream> {
  const stream = await openSse(`${t.url}/v1/${w.projectId}/events/stream`, { authorization: `Bearer ${token}` });
  open.push(stream);
  expect(stream.status).toBe(200);
  await until(async () => stream.comments.includes('connected'), 5_000, 'the stream to start');
  return stream;
}

/** `events.subscribe` through the typed client, collecting what arrives. */
async function subscribe(token: string) {
  const received: EventStreamItem[] = [];
  let started = false;
  const subscription = createTabulaClient({ baseUrl: t.url, token }).events.subscribe.subscribe(
    { projectId: w.projectId },
    { onStarted: () => (started = true), onData: (item: EventStreamItem) => received.push(item) },
  );
  stops.push(() => subscription.unsubscribe());
  await until(async () => started, 5_000, 'the subscription to start');
  return received;
}

interface Body {
  type: string;
  data: { id: string; tableId?: string; data?: Record<string, unknown>; hasDraft?: boolean };
}
const body = (event: SseEvent) => JSON.parse(event.data) as Body;
/** What arrived, as `type row-id`. */
const seen = (stream: SseStream) => stream.events.map((e) => `${e.event} ${body(e).data.id}`);
const seenOnClient = (items: EventStreamItem[]) => items.map((item) => ('id' in item ? `${item.data.type} ${(item.data.data as { id: string }).id}` : 'reset'));

const post = (data: Record<string, unknown>, status = 'PUBLISHED') => createRow(w, posts.id, data, { status });
const change = async (table: string, id: string, data: Record<string, unknown>) => expectStatus(await putRow(w, table, id, { data }), 200);
const remove = async (table: string, id: string) => expect((await t.call('DELETE', contentsPath(w, table, id), { token: w.writeKey })).status).toBe(204);

describe('a role with a where on its own rows and readable columns', () => {
  it('receives the events of its rows only, without hidden columns; a row moved out arrives as contents.unpublished', async () => {
    const me = await keyWithRole('Own posts', [
      { table: posts.key, actions: ['read'], where: [{ i: 'owner', w: 'eq', v: '$me' }], fields: { read: ['title', 'owner'] } },
    ]);
    const stream = await sse(me.secret);
    const client = await subscribe(me.secret);
    const writer = await sse(w.writeKey);

    const mine = await post({ title: 'Mine', owner: me.keyId, secret: 's-mine' });
    const theirs = await post({ title: 'Theirs', owner: 'someone', secret: 's-theirs' });
    // A key's rule without `statuses` reads PUBLISHED rows only.
    const draft = await post({ title: 'Draft of mine', owner: me.keyId, secret: 's-draft' }, 'DRAFT');
    const elsewhere = await createRow(w, others.id, { name: 'Other table' }, { status: 'PUBLISHED' });
    await change(posts.id, mine.id, { title: 'Mine, edited' });
    await change(posts.id, mine.id, { owner: 'someone' }); // leaves the view
    await change(posts.id, mine.id, { title: 'No longer mine' }); // outside: nothing
    await change(posts.id, theirs.id, { owner: me.keyId }); // enters the view
    await remove(posts.id, theirs.id); // deleted while visible
    await remove(posts.id, mine.id); // deleted while outside: nothing
    await remove(posts.id, draft.id);
    const end = await post({ title: 'End', owner: me.keyId });

    // A stream follows the feed in order: once the last event is here, every earlier one was sent or held back.
    await until(async () => seen(writer).includes(`contents.published ${end.id}`), 20_000, 'the writer to see the end');
    await stream.take(1, 20_000, (e) => e.event === 'contents.published' && body(e).data.id === end.id);
    await until(async () => seenOnClient(client).includes(`contents.published ${end.id}`), 20_000, 'the subscription to see the end');

    const expected = [
      `contents.created ${mine.id}`,
      `contents.published ${mine.id}`,
      `contents.updated ${mine.id}`,
      `contents.unpublished ${mine.id}`,
      `contents.updated ${theirs.id}`,
      `contents.deleted ${theirs.id}`,
      `contents.created ${end.id}`,
      `contents.published ${end.id}`,
    ];
    expect(seen(stream)).toEqual(expected);
    expect(seenOnClient(client)).toEqual(expected);
    expect(seen(writer)).toContain(`contents.created ${elsewhere.id}`);

    for (const event of stream.events.filter((e) => body(e).data.data)) {
      expect(Object.keys(body(event).data.data!).sort()).toEqual(['owner', 'title']);
      expect(body(event).data).not.toHaveProperty('hasDraft');
    }
    const left = stream.events.find((e) => e.event === 'contents.unpublished')!;
    expect(body(left).data).toEqual({ id: mine.id, tableId: posts.id });
    expect(body(stream.events[2]).data.data).toEqual({ title: 'Mine, edited', owner: me.keyId });
    expect(JSON.stringify(stream.events)).not.toMatch(/s-mine|s-theirs|s-draft|No longer mine|Other table/);
    // The typed client receives the very envelopes of the REST stream.
    expect(client.map((item) => ('id' in item ? item.data : item))).toEqual(stream.events.map((e) => JSON.parse(e.data)));

    // Resuming replays from the feed through the same policy.
    const resumed = await openSse(`${t.url}/v1/${w.projectId}/events/stream`, { authorization: `Bearer ${me.secret}`, 'last-event-id': stream.events[0].id! });
    open.push(resumed);
    await resumed.take(expected.length - 1, 20_000);
    expect(resumed.events.map((e) => e.data)).toEqual(stream.events.slice(1).map((e) => e.data));
  });

  it('reads drafts and hasDraft only with `drafts`; a status outside `statuses` is a leave, sent once', async () => {
    const drafts = await keyWithRole('Drafts', [
      { table: posts.key, actions: ['read'], statuses: ['DRAFT', 'PUBLISHED'], drafts: true, fields: { read: ['title'] } },
    ]);
    const stream = await sse(drafts.secret);
    const row = await post({ title: 'Drafted', secret: 'x' }, 'DRAFT');
    expectStatus(await putRow(w, posts.id, row.id, { status: 'PUBLISHED' }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { status: 'ARCHIVED' }), 200); // updated + unpublished: one leave
    expectStatus(await putRow(w, posts.id, row.id, { status: 'DRAFT' }), 200); // back inside
    const end = await post({ title: 'End' });
    await stream.take(1, 20_000, (e) => e.event === 'contents.published' && body(e).data.id === end.id);
    expect(seen(stream)).toEqual([
      `contents.created ${row.id}`,
      `contents.updated ${row.id}`,
      `contents.published ${row.id}`,
      `contents.unpublished ${row.id}`,
      `contents.updated ${row.id}`,
      `contents.created ${end.id}`,
      `contents.published ${end.id}`,
    ]);
    expect(body(stream.events[0]).data).toMatchObject({ status: 'DRAFT', data: { title: 'Drafted' }, hasDraft: false });
    expect(body(stream.events[3]).data).toEqual({ id: row.id, tableId: posts.id });
    expect(JSON.stringify(stream.events)).not.toContain('"secret"');
  });

  it('applies a changed role to an open stream within a few seconds', async () => {
    const me = await keyWithRole('Titles only', [{ table: posts.key, actions: ['read'], fields: { read: ['title'] } }]);
    const stream = await sse(me.secret);
    const row = await post({ title: 'Probe', secret: 'now visible' });
    await stream.take(1, 20_000, (e) => e.event === 'contents.created' && body(e).data.id === row.id);
    expect(body(stream.events[0]).data.data).toEqual({ title: 'Probe' });

    expectStatus(await t.call('PUT', `/v1/${w.projectId}/roles/${me.roleId}`, { body: { rules: [{ table: posts.key, actions: ['read'], fields: { read: ['title', 'secret'] } }] } }), 200);
    const changed = Date.now();
    let n = 0;
    await until(
      async () => {
        await change(posts.id, row.id, { title: `Probe ${++n}` });
        await new Promise((resolve) => setTimeout(resolve, 200));
        return stream.events.some((e) => body(e).data.data?.secret === 'now visible');
      },
      15_000,
      'the new rules to reach the stream',
    );
    // REALTIME_RECHECK_MS, the credential cache's half second, and the relay.
    expect(Date.now() - changed).toBeLessThan(5_000);
  });
});

describe('a role whose where goes through a reference', () => {
  it('is decided by the database, for the row after and before the change, and for deleted rows', async () => {
    const red = await createRow(w, authors.id, { name: 'Ann', team: 'red' }, { status: 'PUBLISHED' });
    const blue = await createRow(w, authors.id, { name: 'Bob', team: 'blue' }, { status: 'PUBLISHED' });
    const team = await keyWithRole('Red team', [{ table: posts.key, actions: ['read'], where: [{ i: 'author.team', w: 'eq', v: 'red' }] }]);
    const stream = await sse(team.secret);

    const a = await post({ title: 'A', author: red.id, secret: 'a' });
    const b = await post({ title: 'B', author: blue.id });
    await change(posts.id, a.id, { author: blue.id }); // leaves
    await change(posts.id, b.id, { author: red.id }); // enters
    await change(posts.id, a.id, { title: 'A again' }); // outside: nothing
    await remove(posts.id, a.id); // deleted while outside: nothing
    await remove(posts.id, b.id); // deleted while inside
    await createRow(w, authors.id, { name: 'Cy', team: 'red' }, { status: 'PUBLISHED' }); // no rule on authors
    const end = await post({ title: 'End', author: red.id });

    await stream.take(1, 20_000, (e) => e.event === 'contents.published' && body(e).data.id === end.id);
    expect(seen(stream)).toEqual([
      `contents.created ${a.id}`,
      `contents.published ${a.id}`,
      `contents.unpublished ${a.id}`,
      `contents.updated ${b.id}`,
      `contents.deleted ${b.id}`,
      `contents.created ${end.id}`,
      `contents.published ${end.id}`,
    ]);
    // Every column (no `fields`), no hasDraft (no `drafts`).
    expect(body(stream.events[0]).data.data).toEqual({ title: 'A', author: red.id, secret: 'a' });
    expect(stream.events.map((e) => body(e).data).filter((d) => 'hasDraft' in d)).toEqual([]);
    expect(body(stream.events[2]).data).toEqual({ id: a.id, tableId: posts.id });
  });
});

describe('a reference cleared by a delete (onDelete setNull)', () => {
  it('takes the row out of a where on that reference: the update arrives as contents.unpublished', async () => {
    const dee = await createRow(w, authors.id, { name: 'Dee', team: 'green' }, { status: 'PUBLISHED' });
    const fans = await keyWithRole('Dee fans', [{ table: posts.key, actions: ['read'], where: [{ i: 'author', w: 'eq', v: dee.id }] }]);
    const stream = await sse(fans.secret);
    const row = await post({ title: 'By Dee', author: dee.id });
    await remove(authors.id, dee.id);
    expect((await t.call('GET', contentsPath(w, posts.id, row.id), { token: w.writeKey })).json.data).not.toHaveProperty('author');
    await stream.take(3, 20_000);
    expect(seen(stream)).toEqual([`contents.created ${row.id}`, `contents.published ${row.id}`, `contents.unpublished ${row.id}`]);
    expect(body(stream.events[2]).data).toEqual({ id: row.id, tableId: posts.id });
  });
});

describe('files and tables events', () => {
  async function upload(name: string, type: string, bytes: Uint8Array) {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), name);
    const res = await fetch(`${t.url}/v1/${w.projectId}/files`, { method: 'POST', headers: { authorization: `Bearer ${w.writeKey}` }, body: form });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string };
  }

  it('reach a custom role for the files its $files rules read and the tables its rules name; built-in grants get them all', async () => {
    const images = await keyWithRole('Images', [
      { table: posts.key, actions: ['read'] },
      { table: '$files', actions: ['read'], where: [{ i: 'mimeType', w: 'startsWith', v: 'image/' }] },
    ]);
    const postsOnly = await keyWithRole('Posts only', [{ table: posts.key, actions: ['read'] }]);
    const streams = { images: await sse(images.secret), postsOnly: await sse(postsOnly.secret), reader: await sse(w.readKey) };

    const png = await upload('logo.png', 'image/png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const txt = await upload('note.txt', 'text/plain', new TextEncoder().encode('hello'));
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/tables/${others.id}`, { body: { name: 'Others renamed' } }), 200);
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/tables/${posts.id}`, { body: { name: 'Posts renamed' } }), 200);
    const end = await post({ title: 'End of files' });
    for (const stream of Object.values(streams)) await stream.take(1, 20_000, (e) => e.event === 'contents.published' && body(e).data.id === end.id);

    const endEvents = [`contents.created ${end.id}`, `contents.published ${end.id}`];
    expect(seen(streams.images)).toEqual([`files.created ${png.id}`, `tables.updated ${posts.id}`, ...endEvents]);
    expect(seen(streams.postsOnly)).toEqual([`tables.updated ${posts.id}`, ...endEvents]);
    expect(seen(streams.reader)).toEqual([`files.created ${png.id}`, `files.created ${txt.id}`, `tables.updated ${others.id}`, `tables.updated ${posts.id}`, ...endEvents]);
  });
});
