import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient, TabulaError } from 'tabula/client';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { startInProcess, type SecondApi } from '../auth/second-process.js';
import { buildWorld, contentsPath, createRow, createTable, expectError, expectNoContent, expectStatus, getRow, list, putRow, type Table, type World } from './fixture.js';

/**
 * docs/contents.md#concurrent-edits: every row carries `version`; a read of one answers its ETag;
 * writes with `If-Match` (or `ifVersion`) are made only over that version, else 412 with the
 * current ETag and nothing written; checked under the row lock, so of N writers sending the same
 * version exactly one wins, on one API process or two.
 */
let t: TestApi;
let w: World;
let posts: Table;
let second: SecondApi;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [
    { name: 'title', type: 'text', settings: { required: true } },
    { name: 'body', type: 'longtext' },
  ]);
  second = await startInProcess(t, {});
});
afterAll(async () => {
  await second?.close();
  await t?.close();
});

const tag = (id: string, version: number) => `"${id}:${version}"`;
const ifMatch = (value: string) => ({ 'if-match': value });
const rowPath = (id: string) => contentsPath(w, posts.id, id);
const read = async (id: string) => expectStatus(await getRow(w, posts.id, id), 200);

/** 412 PRECONDITION_FAILED naming the current version, its ETag in the header. */
function expectStale(res: CallResult, id: string, current: number) {
  const error = expectError(res, 412, 'PRECONDITION_FAILED');
  expect(error.message).toContain(`version ${current}`);
  expect(res.headers.get('etag')).toBe(tag(id, current));
}

describe('version on every shape', () => {
  it('counts 1 on create and +1 per write, in write answers, reads, lists and exports', async () => {
    const row = await createRow(w, posts.id, { title: 'One' }, { status: 'DRAFT' });
    expect(row.version).toBe(1);
    const updated = expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Two' } }), 200);
    expect(updated.version).toBe(2);
    const published = expectStatus(await putRow(w, posts.id, row.id, { status: 'PUBLISHED' }), 200);
    expect(published.version).toBe(3);

    const res = await getRow(w, posts.id, row.id);
    expect(expectStatus(res, 200).version).toBe(3);
    expect(res.headers.get('etag')).toBe(tag(row.id, 3));
    // The ETag is the row's whatever `fields` leaves out; `version` is a system field `fields` names.
    const narrow = await getRow(w, posts.id, row.id, w.writeKey, '?fields=title');
    expect(narrow.json).toEqual({ id: row.id, data: { title: 'Two' } });
    expect(narrow.headers.get('etag')).toBe(tag(row.id, 3));
    expect(expectStatus(await getRow(w, posts.id, row.id, w.writeKey, '?fields=version'), 200)).toEqual({ id: row.id, version: 3 });

    const all = await list(w, posts.id, w.writeKey);
    expect(all.list.find((item) => item.id === row.id)).toMatchObject({ version: 3 });
    const versions = await list(w, posts.id, w.writeKey, { fields: 'version', filter: [{ i: 'id', w: 'eq', v: row.id }] });
    expect(versions.list).toEqual([{ id: row.id, version: 3 }]);
    // The list cache (a second read of the same list) answers the same.
    expect((await list(w, posts.id, w.writeKey)).list.find((item) => item.id === row.id)).toMatchObject({ version: 3 });

    const exported = await t.call('GET', `${contentsPath(w, posts.id)}/export?format=ndjson`, { token: w.writeKey });
    expect(exported.status, exported.text).toBe(200);
    const line = exported.text.trim().split('\n').map((l) => JSON.parse(l) as { id: string; version: number }).find((l) => l.id === row.id);
    expect(line?.version).toBe(3);
  });

  it('answers a weak ETag for a read of the draft, and a draft save keeps the version', async () => {
    const row = await createRow(w, posts.id, { title: 'Live' }, { status: 'PUBLISHED' });
    const saved = await putRow(w, posts.id, row.id, { data: { title: 'Next' }, draft: true });
    expect(expectStatus(saved, 200).version).toBe(1);
    expect(saved.headers.get('etag')).toBe(`W/"${row.id}:1:draft"`);
    const draft = await getRow(w, posts.id, row.id, w.writeKey, '?version=draft');
    expect(expectStatus(draft, 200)).toMatchObject({ version: 1, data: { title: 'Next' } });
    expect(draft.headers.get('etag')).toBe(`W/"${row.id}:1:draft"`);
  });
});

describe('If-Match', () => {
  it('PUT: a stale tag is 412 and writes nothing; the current one writes', async () => {
    const row = await createRow(w, posts.id, { title: 'A' }, { status: 'DRAFT' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'B' } }), 200);

    const stale = await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'C' } }, headers: ifMatch(tag(row.id, 1)) });
    expectStale(stale, row.id, 2);
    expect(await read(row.id)).toMatchObject({ version: 2, data: { title: 'B' } });

    const fresh = await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'C' } }, headers: ifMatch(stale.headers.get('etag')!) });
    expect(expectStatus(fresh, 200)).toMatchObject({ version: 3, data: { title: 'C' } });
    expect(fresh.headers.get('etag')).toBe(tag(row.id, 3));
    // A bare version, a weak tag and a list of tags are accepted; another row's id does not match.
    expectStatus(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'D' } }, headers: ifMatch('"3"') }), 200);
    expectStatus(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'E' } }, headers: ifMatch(`W/${tag(row.id, 4)}`) }), 200);
    expectStatus(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { status: 'PUBLISHED' }, headers: ifMatch(`${tag(row.id, 1)}, ${tag(row.id, 5)}`) }), 200);
    const other = await createRow(w, posts.id, { title: 'Other' });
    expectStale(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'X' } }, headers: ifMatch(tag(other.id, 6)) }), row.id, 6);
    // `*`: any current row; a malformed tag is 400, never a blind write.
    expectStatus(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'F' } }, headers: ifMatch('*') }), 200);
    expectError(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'G' } }, headers: ifMatch('version-7') }), 400, 'BAD_REQUEST');
    expect(await read(row.id)).toMatchObject({ version: 7, status: 'PUBLISHED', data: { title: 'F' } });
  });

  it('PUT with status and ifVersion in the body', async () => {
    const row = await createRow(w, posts.id, { title: 'S' }, { status: 'DRAFT' });
    expectStale(await putRow(w, posts.id, row.id, { status: 'PUBLISHED', ifVersion: 2 }), row.id, 1);
    expect(await read(row.id)).toMatchObject({ version: 1, status: 'DRAFT' });
    expect(expectStatus(await putRow(w, posts.id, row.id, { status: 'PUBLISHED', ifVersion: 1 }), 200)).toMatchObject({ version: 2, status: 'PUBLISHED' });
  });

  it('DELETE: stale is 412 and the row stays; current is 204', async () => {
    const row = await createRow(w, posts.id, { title: 'Doomed' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Doomed 2' } }), 200);
    expectStale(await t.call('DELETE', rowPath(row.id), { token: w.writeKey, headers: ifMatch(tag(row.id, 1)) }), row.id, 2);
    expectStale(await t.call('DELETE', `${rowPath(row.id)}?ifVersion=1`, { token: w.writeKey }), row.id, 2);
    expect(await read(row.id)).toMatchObject({ version: 2 });
    expectNoContent(await t.call('DELETE', rowPath(row.id), { token: w.writeKey, headers: ifMatch(tag(row.id, 2)) }));
    expectStatus(await getRow(w, posts.id, row.id), 404);
  });

  it('draft save, publish and discard', async () => {
    const row = await createRow(w, posts.id, { title: 'Live' }, { status: 'PUBLISHED' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { body: 'live edit' } }), 200); // version 2
    const draftPath = `${rowPath(row.id)}/draft`;

    // Draft save: the draft read's weak tag works; a stale one is 412 and no draft is saved.
    expectStale(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'Draft' }, draft: true }, headers: ifMatch(tag(row.id, 1)) }), row.id, 2);
    expect(await read(row.id)).toMatchObject({ hasDraft: false });
    const draftTag = (await getRow(w, posts.id, row.id, w.writeKey, '?version=draft')).headers.get('etag')!;
    expectStatus(await t.call('PUT', rowPath(row.id), { token: w.writeKey, body: { data: { title: 'Draft' }, draft: true }, headers: ifMatch(draftTag) }), 200);

    // Discard: stale 412 keeps the draft.
    expectStale(await t.call('DELETE', draftPath, { token: w.writeKey, headers: ifMatch(tag(row.id, 1)) }), row.id, 2);
    expect(await read(row.id)).toMatchObject({ hasDraft: true });

    // Publish: stale 412 leaves the live row and the draft; current publishes.
    expectStale(await t.call('POST', `${draftPath}/publish`, { token: w.writeKey, headers: ifMatch(tag(row.id, 1)) }), row.id, 2);
    expect(await read(row.id)).toMatchObject({ version: 2, hasDraft: true, data: { title: 'Live' } });
    const published = await t.call('POST', `${draftPath}/publish`, { token: w.writeKey, headers: ifMatch(tag(row.id, 2)) });
    expect(expectStatus(published, 200)).toMatchObject({ version: 3, hasDraft: false, data: { title: 'Draft' } });
    expect(published.headers.get('etag')).toBe(tag(row.id, 3));

    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Again' }, draft: true }), 200);
    expectNoContent(await t.call('DELETE', draftPath, { token: w.writeKey, headers: ifMatch(tag(row.id, 3)) }));
    expect(await read(row.id)).toMatchObject({ version: 3, hasDraft: false });
  });

  it('revision restore, onto the row and into its draft', async () => {
    const row = await createRow(w, posts.id, { title: 'R1' }, { status: 'PUBLISHED' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'R2' } }), 200); // version 2
    const restore = `${rowPath(row.id)}/revisions/1/restore`;
    expectStale(await t.call('POST', restore, { token: w.writeKey, body: {}, headers: ifMatch(tag(row.id, 1)) }), row.id, 2);
    expectStale(await t.call('POST', restore, { token: w.writeKey, body: { draft: true }, headers: ifMatch(tag(row.id, 1)) }), row.id, 2);
    expectStale(await t.call('POST', restore, { token: w.writeKey, body: { ifVersion: 1 } }), row.id, 2);
    expect(await read(row.id)).toMatchObject({ version: 2, hasDraft: false, data: { title: 'R2' } });

    expect(expectStatus(await t.call('POST', restore, { token: w.writeKey, body: { draft: true }, headers: ifMatch(tag(row.id, 2)) }), 200)).toMatchObject({ version: 2, hasDraft: true });
    const restored = await t.call('POST', restore, { token: w.writeKey, body: {}, headers: ifMatch(tag(row.id, 2)) });
    expect(expectStatus(restored, 200)).toMatchObject({ version: 3, data: { title: 'R1' } });
  });
});

describe('over tRPC', () => {
  it('takes ifVersion and answers PRECONDITION_FAILED', async () => {
    const client = createTabulaClient({ baseUrl: t.url, token: w.writeKey });
    const input = { projectId: w.projectId, tableId: posts.id };
    const row = await client.contents.create.mutate({ ...input, data: { title: 'T' }, status: 'DRAFT' });
    expect(row.version).toBe(1);
    const updated = await client.contents.update.mutate({ ...input, contentsId: row.id, data: { title: 'T2' }, ifVersion: 1 });
    expect(updated.version).toBe(2);
    const stale = await client.contents.update.mutate({ ...input, contentsId: row.id, data: { title: 'T3' }, ifVersion: 1 }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(TabulaError);
    expect((stale as TabulaError).code).toBe('PRECONDITION_FAILED');
    expect((stale as TabulaError).message).toContain('version 2');
    await expect(client.contents.delete.mutate({ ...input, contentsId: row.id, ifVersion: 1 })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect((await client.contents.get.query({ ...input, contentsId: row.id })).data).toEqual({ title: 'T2' });
    await client.contents.delete.mutate({ ...input, contentsId: row.id, ifVersion: 2 });
  });
});

describe('racing writers', () => {
  const race = async (calls: ((body: Record<string, unknown>) => Promise<CallResult>)[]) => {
    const row = await createRow(w, posts.id, { title: 'Race' }, { status: 'DRAFT' });
    const answers = await Promise.all(calls.map((call, i) => call({ id: row.id, title: `Writer ${i}` })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([200, ...Array<number>(calls.length - 1).fill(412)]);
    const winner = answers.find((a) => a.status === 200)!;
    for (const loser of answers.filter((a) => a.status === 412)) expectStale(loser, row.id, 2);
    expect(await read(row.id)).toMatchObject({ version: 2, data: { title: winner.json.data.title } });
  };
  const put = (call: TestApi['call']) => (body: Record<string, unknown>) =>
    call('PUT', rowPath(body.id as string), { token: w.writeKey, body: { data: { title: body.title } }, headers: ifMatch(tag(body.id as string, 1)) });

  it('of ten PUTs with the same If-Match, exactly one writes', async () => {
    await race(Array.from({ length: 10 }, () => put(t.call)));
  });

  it('the same across two API processes on one database', async () => {
    await race(Array.from({ length: 10 }, (_, i) => put(i % 2 === 0 ? t.call : second.call)));
  });
});

describe('OpenAPI', () => {
  type Op = { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown> }>; requestBody?: unknown };
  const takesIfMatch = (op: Op) => {
    expect(op.parameters?.some((p) => p.name === 'If-Match' && p.in === 'header')).toBe(true);
    expect(op.responses['412']).toBeDefined();
  };

  it('documents version, ifVersion, If-Match, ETag and 412 in /v1 and in a project’s document', async () => {
    const doc = expectStatus(await t.call('GET', '/v1/openapi.json', { token: null }), 200);
    const item = doc.paths['/{projectId}/tables/{tableId}/contents/{contentsId}'];
    takesIfMatch(item.put);
    takesIfMatch(item.delete);
    expect(item.delete.parameters.some((p: { name: string }) => p.name === 'ifVersion')).toBe(true);
    expect(item.get.responses['200'].headers.ETag).toBeDefined();
    expect(item.get.parameters.some((p: { name: string }) => p.name === 'If-Match')).toBe(false);
    expect(item.put.responses['200'].headers.ETag).toBeDefined();
    takesIfMatch(doc.paths['/{projectId}/tables/{tableId}/contents/{contentsId}/draft'].delete);
    takesIfMatch(doc.paths['/{projectId}/tables/{tableId}/contents/{contentsId}/draft/publish'].post);
    takesIfMatch(doc.paths['/{projectId}/tables/{tableId}/contents/{contentsId}/revisions/{version}/restore'].post);
    expect(JSON.stringify(doc.components.schemas)).toContain('PRECONDITION_FAILED');
    expect(JSON.stringify(item.put.requestBody)).toContain('ifVersion');
    expect(JSON.stringify(item.get.responses['200'])).toContain('"version"');

    const own = expectStatus(await t.call('GET', `/v1/${w.projectId}/openapi.json`, { token: w.writeKey }), 200);
    const table = (await t.call('GET', `/v1/${w.projectId}/tables/${posts.id}`, { token: w.writeKey })).json.key as string;
    const row = own.paths[`/tables/${table}/contents/{contentsId}`];
    takesIfMatch(row.put);
    takesIfMatch(row.delete);
    expect(row.get.responses['200'].headers.ETag).toBeDefined();
    expect(JSON.stringify(own.components.schemas)).toContain('ifVersion');
  });
});
