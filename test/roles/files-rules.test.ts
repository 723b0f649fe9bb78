import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person } from '../auth/fixture.js';
import { contentsPath, createRow, createTable, expectCreated, expectError, expectNoContent, expectStatus, GHOST, roleKey, type Table } from '../contents/fixture.js';
import { bytesOf, download, filesPath, sendForm, startFilesWorld, storedState, upload, type FilesWorld } from '../resources/fixture.js';

/** `$files` rules of custom roles: the file library a role's holder lists, downloads and writes (docs/roles.md#files). */

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), bytesOf(200, 3)]);
const IMAGES = { table: '$files', actions: ['read'], where: [{ i: 'mimeType', w: 'startsWith', v: 'image/' }] };

let w: FilesWorld;
let table: Table;
/** Files by what references them. */
const f = {} as Record<'image' | 'published' | 'gallery' | 'draft' | 'loose', string>;

let counter = 0;
/** A key holding a new custom role with `rules`. */
const keyWith = async (rules: unknown[]) => (await roleKey(w, rules)).key;

const uploadAs = async (token: string | undefined, bytes: Buffer | string, filename: string, type: string) =>
  upload(w, { bytes, filename, type }, token === undefined ? {} : { token });
const newFile = async (filename: string, type: string, bytes: Buffer | string = bytesOf(300)) => expectCreated(await uploadAs(undefined, bytes, filename, type)).id as string;
const listNames = async (token: string, query = '') =>
  (expectStatus(await w.t.call('GET', `${filesPath(w)}?size=1000${query}`, { token }), 200).list as { id: string; name: string }[]).map((file) => file.name).sort();
const pdf = (filename: string) => newFile(filename, 'application/pdf', Buffer.from('%PDF-1.7\n...'));

beforeAll(async () => {
  w = await startFilesWorld('local');
  f.image = await newFile('photo.png', 'image/png', PNG);
  f.published = await pdf('published.pdf');
  f.gallery = await pdf('gallery.pdf');
  f.draft = await pdf('draft.pdf');
  f.loose = await pdf('loose.pdf');
  table = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'cover', type: 'file' },
    { name: 'gallery', type: 'file', settings: { multiple: true } },
  ]);
  await createRow(w, table.key, { title: 'Live', cover: f.published, gallery: [f.image, f.gallery] }, { status: 'PUBLISHED' });
  await createRow(w, table.key, { title: 'Embargoed', cover: f.draft }, { status: 'DRAFT' });
});
afterAll(async () => w?.close());

describe('a "$files" read rule', () => {
  it('lists only the files inside it, with a true total; the list’s own mimeType filter applies within', async () => {
    const key = await keyWith([IMAGES]);
    expect(await listNames(key)).toEqual(['photo.png']);
    const page = expectStatus(await w.t.call('GET', `${filesPath(w)}?size=1`, { token: key }), 200);
    expect(page.pagination).toMatchObject({ total: 1, pages: 1, hasNext: false });
    expect(await listNames(key, '&mimeType=application/pdf')).toEqual([]);
    expect(await listNames(key, '&mimeType=image/*')).toEqual(['photo.png']);
    expect(expectStatus(await w.t.call('GET', `${filesPath(w)}?withCount=false`, { token: key }), 200).pagination.total).toBeNull();
  });

  it('downloads and reads the metadata of an image; a PDF outside it is 404 (unless a readable row references it)', async () => {
    const key = await keyWith([IMAGES]);
    const got = await download(w, f.image, {}, key);
    expect(got.status).toBe(200);
    expect(got.body.equals(PNG)).toBe(true);
    expect((await download(w, f.image, { range: 'bytes=0-3' }, key)).status).toBe(206);
    expect(expectStatus(await w.t.call('GET', filesPath(w, f.image), { token: key }), 200).name).toBe('photo.png');
    expect((await download(w, f.loose, {}, key)).status).toBe(404);
    expect((await download(w, f.published, {}, key)).status).toBe(404);
    expectError(await w.t.call('GET', filesPath(w, f.loose), { token: key }), 404, 'NOT_FOUND');
    expectError(await w.t.call('GET', filesPath(w, GHOST), { token: key }), 404, 'NOT_FOUND');
  });

  it('several read rules: any of them; a rule without where: every file', async () => {
    const names = await keyWith([IMAGES, { table: '$files', actions: ['read'], where: [{ i: 'name', w: 'in', v: ['loose.pdf', 'draft.pdf'] }] }]);
    expect(await listNames(names)).toEqual(['draft.pdf', 'loose.pdf', 'photo.png']);
    const everything = await keyWith([IMAGES, { table: '$files', actions: ['read'] }]);
    expect((await listNames(everything)).length).toBeGreaterThanOrEqual(5);
    expect((await download(w, f.draft, {}, everything)).status).toBe(200);
  });

  it('non-ASCII names: the database decides what JavaScript cannot', async () => {
    const id = expectCreated(await upload(w, { bytes: 'x', filename: 'x.txt', type: 'text/plain' }, { name: 'été.txt' })).id as string;
    const key = await keyWith([{ table: '$files', actions: ['read'], where: [{ i: 'name', w: 'startsWith', v: 'été' }] }]);
    expect(expectStatus(await w.t.call('GET', filesPath(w, id), { token: key }), 200).name).toBe('été.txt');
    expect(await listNames(key)).toEqual(['été.txt']);
  });

  it('a member holding the role sees the same library', async () => {
    const role = expectCreated(await w.t.call('POST', `/v1/${w.projectId}/roles`, { body: { name: `member-${++counter}`, rules: [IMAGES] } }));
    const who = await person(w.t, w.workspaceId);
    expectCreated(await w.t.call('POST', `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}/members`, { body: { accountId: who.accountId, role: role.id } }));
    expect(await listNames(who.token)).toEqual(['photo.png']);
    expect((await download(w, f.loose, {}, who.token)).status).toBe(404);
  });
});

describe('a role without "$files" rules', () => {
  it('cannot list the library nor read metadata (403), whatever the file', async () => {
    const key = await keyWith([{ table: table.key, actions: ['read'] }]);
    expect(expectError(await w.t.call('GET', filesPath(w), { token: key }), 403, 'FORBIDDEN').message).toContain('$files');
    expectError(await w.t.call('GET', filesPath(w, f.published), { token: key }), 403, 'FORBIDDEN');
    expectError(await w.t.call('GET', filesPath(w, GHOST), { token: key }), 403, 'FORBIDDEN');
  });

  it('downloads the files of the PUBLISHED rows it reads (single and multiple columns); a DRAFT row’s or an unreferenced file is 404', async () => {
    const key = await keyWith([{ table: table.key, actions: ['read'] }]);
    for (const id of [f.published, f.gallery, f.image]) expect((await download(w, id, {}, key)).status, id).toBe(200);
    expect((await download(w, f.published, {}, key)).headers.get('content-type')).toBe('application/pdf');
    expect((await download(w, f.draft, {}, key)).status).toBe(404);
    expect((await download(w, f.loose, {}, key)).status).toBe(404);
    expect((await download(w, GHOST, {}, key)).status).toBe(404);
  });

  it('what it reads decides: statuses, columns, tables', async () => {
    const drafts = await keyWith([{ table: table.key, actions: ['read'], statuses: ['DRAFT', 'PUBLISHED'] }]);
    expect((await download(w, f.draft, {}, drafts)).status).toBe(200);
    const titles = await keyWith([{ table: table.key, actions: ['read'], fields: { read: ['title', 'gallery'] } }]);
    expect((await download(w, f.published, {}, titles)).status).toBe(404);
    expect((await download(w, f.gallery, {}, titles)).status).toBe(200);
    const other = await createTable(w, [{ name: 'name', type: 'text' }]);
    const elsewhere = await keyWith([{ table: other.key, actions: ['read'] }]);
    expect((await download(w, f.published, {}, elsewhere)).status).toBe(404);
  });

  it('expand shows the files of the rows it reads, as before', async () => {
    const key = await keyWith([{ table: table.key, actions: ['read'] }]);
    const listed = expectStatus(await w.t.call('GET', `${contentsPath(w, table.key)}?expand=cover,gallery`, { token: key }), 200).list;
    expect(listed).toHaveLength(1);
    expect(listed[0].data.cover).toMatchObject({ id: f.published, name: 'published.pdf' });
    expect(listed[0].data.gallery.map((file: { id: string }) => file.id)).toEqual([f.image, f.gallery]);
  });

  it('cannot upload, replace, rename or delete (403), before a byte is stored', async () => {
    const key = await keyWith([{ table: table.key, actions: ['read', 'create', 'update', 'delete'] }]);
    const before = await storedState(w);
    expect(expectError(await uploadAs(key, 'tiny', 'a.txt', 'text/plain'), 403, 'FORBIDDEN').message).toContain('cannot upload files');
    expectError(await sendForm(w, 'PUT', filesPath(w, f.loose), { bytes: 'x', filename: 'x.txt' }, { token: key }), 403, 'FORBIDDEN');
    expectError(await w.t.call('PUT', filesPath(w, f.loose), { token: key, body: { name: 'renamed.pdf' } }), 403, 'FORBIDDEN');
    expectError(await w.t.call('DELETE', filesPath(w, f.loose), { token: key }), 403, 'FORBIDDEN');
    expect(await storedState(w)).toEqual(before);
  });
});

describe('"$files" write rules', () => {
  it('create where size lte 1000: a small upload is 201, a larger one 403 and nothing is kept', async () => {
    const key = await keyWith([{ table: '$files', actions: ['create'], where: [{ i: 'size', w: 'lte', v: 1000 }] }]);
    const created = expectCreated(await uploadAs(key, bytesOf(500), 'small.bin', 'application/octet-stream'));
    expect(created.size).toBe(500);
    const before = await storedState(w);
    expect(expectError(await uploadAs(key, bytesOf(2000), 'large.bin', 'application/octet-stream'), 403, 'FORBIDDEN').message).toContain('outside');
    expect(await storedState(w)).toEqual(before);
  });

  it('update and delete hold the file before and after; read rules decide which files a write addresses', async () => {
    const mine = { table: '$files', actions: ['update', 'delete'], where: [{ i: 'name', w: 'startsWith', v: 'public-' }] };
    const key = await keyWith([mine]);
    const id = await newFile('public-one.txt', 'text/plain', 'one');
    const other = await newFile('private.txt', 'text/plain', 'two');

    expect(expectStatus(await w.t.call('PUT', filesPath(w, id), { token: key, body: { name: 'public-two.txt' } }), 200).name).toBe('public-two.txt');
    expectError(await w.t.call('PUT', filesPath(w, id), { token: key, body: { name: 'secret.txt' } }), 403, 'FORBIDDEN');
    const replaced = expectStatus(await sendForm(w, 'PUT', filesPath(w, id), { bytes: 'three!', filename: 'x.txt', type: 'text/plain' }, { token: key }), 200);
    expect(replaced).toMatchObject({ name: 'public-two.txt', size: 6 });
    // A replace that names the file outside the rule is refused, and the old bytes stay.
    expectError(await sendForm(w, 'PUT', filesPath(w, id), { bytes: 'four', filename: 'x.txt' }, { token: key, name: 'hidden.txt' }), 403, 'FORBIDDEN');
    expect((await download(w, id, {}, w.writeKey)).body.toString()).toBe('three!');

    expectError(await w.t.call('PUT', filesPath(w, other), { token: key, body: { name: 'public-mine.txt' } }), 403, 'FORBIDDEN');
    expectError(await w.t.call('DELETE', filesPath(w, other), { token: key }), 403, 'FORBIDDEN');
    expectError(await w.t.call('DELETE', filesPath(w, GHOST), { token: key }), 404, 'NOT_FOUND');
    expectNoContent(await w.t.call('DELETE', filesPath(w, id), { token: key }));
    // Referenced files are still 409 for whoever may delete them.
    const everything = await keyWith([{ table: '$files', actions: ['read', 'delete'] }]);
    expectError(await w.t.call('DELETE', filesPath(w, f.published), { token: everything }), 409, 'CONFLICT');

    // With read rules, a file outside them is not there for a write either.
    const reader = await keyWith([IMAGES, { table: '$files', actions: ['delete'] }]);
    expectError(await w.t.call('DELETE', filesPath(w, other), { token: reader }), 404, 'NOT_FOUND');
  });
});

describe('built-in grants keep their access', () => {
  it('a read key lists and downloads every file, a DRAFT row’s too; a read_write key uploads', async () => {
    const names = await listNames(w.readKey);
    expect(names).toEqual(expect.arrayContaining(['draft.pdf', 'gallery.pdf', 'loose.pdf', 'photo.png', 'published.pdf']));
    for (const id of Object.values(f)) expect((await download(w, id, {}, w.readKey)).status, id).toBe(200);
    expectStatus(await w.t.call('GET', filesPath(w, f.draft), { token: w.readKey }), 200);
    expectError(await uploadAs(w.readKey, 'x', 'x.txt', 'text/plain'), 403, 'FORBIDDEN');
    expectCreated(await uploadAs(w.writeKey, bytesOf(5000), 'big.bin', 'application/octet-stream'));
  });
});

describe('explain of the file library (table=$files)', () => {
  const explain = (query: string, token?: string) => w.t.call('GET', `/v1/${w.projectId}/access/explain?table=%24files${query}`, token === undefined ? {} : { token });
  const no = { allowed: false, rules: [] };

  it('says per action what a custom role allows, and for one file which rules hold it; a file outside its read rules is 404', async () => {
    const rules = [IMAGES, { table: '$files', actions: ['update', 'delete'], where: [{ i: 'name', w: 'startsWith', v: 'photo' }] }];
    const { key, id, roleId } = await roleKey(w, rules);
    expect(expectStatus(await explain('', key), 200)).toEqual({
      actions: { read: { allowed: true, rules: [0] }, create: no, update: { allowed: true, rules: [1] }, delete: { allowed: true, rules: [1] }, publish: no },
      fields: { read: [], write: [] },
    });
    expect(expectStatus(await explain(`&contentsId=${f.image}`, key), 200).actions.update).toEqual({ allowed: true, rules: [1] });
    expectError(await explain(`&contentsId=${f.loose}`, key), 404, 'NOT_FOUND');
    // The project's admin asks about the role and the key: the same answer.
    expect(expectStatus(await explain(`&roleId=${roleId}`), 200).actions.create).toEqual(no);
    expect(expectStatus(await explain(`&apiKeyId=${id}`), 200).actions.delete).toEqual({ allowed: true, rules: [1] });
    // Another image, whose name is outside the write rule: read, not replaced or deleted.
    const other = await newFile('other.png', 'image/png', PNG);
    const onOther = expectStatus(await explain(`&contentsId=${other}`, key), 200).actions;
    expect([onOther.read.allowed, onOther.update.allowed, onOther.delete.allowed]).toEqual([true, false, false]);
  });

  it('gives built-in grants their level: the admin writes every file, a read key reads only; a role with no $files rule may nothing', async () => {
    const admin = expectStatus(await explain(''), 200).actions;
    expect([admin.read.allowed, admin.create.allowed, admin.update.allowed, admin.delete.allowed]).toEqual([true, true, true, true]);
    const reader = expectCreated(await w.t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name: uniqueName(), permission: 'read' } }));
    const read = expectStatus(await explain('', reader.key), 200).actions;
    expect([read.read.allowed, read.create.allowed, read.update.allowed, read.delete.allowed]).toEqual([true, false, false, false]);
    expect(expectStatus(await explain(`&apiKeyId=${reader.id}`), 200).actions.create).toEqual(no);
    expect(expectStatus(await explain('&roleId=VIEWER'), 200).actions.update).toEqual(no);
    const { key } = await roleKey(w, [{ table: table.key, actions: ['read'] }]);
    expect(Object.values(expectStatus(await explain('', key), 200).actions).every((v) => (v as { allowed: boolean }).allowed === false)).toBe(true);
  });
});

let keys = 0;
const uniqueName = () => `explain-reader-${++keys}`;
