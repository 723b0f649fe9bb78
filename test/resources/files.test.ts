import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person } from '../auth/fixture.js';
import { expectBadRequest, expectError, expectNoContent, expectStatus, GHOST, ISO_UTC } from '../contents/fixture.js';
import {
  bytesOf, download, DRIVERS, expectFileShape, filesPath, sendForm, sha256, startFilesWorld, storedState, upload, type FilesWorld,
} from './fixture.js';

/** Files: upload, list, read, rename, replace, download, delete — on every storage driver (docs/resources.md#files). */

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), bytesOf(200, 3)]);

describe.each(DRIVERS)('files on the %s driver', (driver) => {
  let w: FilesWorld;

  beforeAll(async () => {
    w = await startFilesWorld(driver);
  });
  afterAll(async () => w?.close());

  describe('upload', () => {
    it('201 with Location and the wire shape; name from the file name, type from the part', async () => {
      const bytes = bytesOf(5000);
      const res = await upload(w, { bytes, filename: 'report.pdf', type: 'application/pdf' });
      expect(res.status, res.text).toBe(201);
      const file = res.json;
      expectFileShape(file);
      expect(res.headers.get('location')).toBe(`${filesPath(w)}/${file.id}`);
      expect(file).toMatchObject({ name: 'report.pdf', mimeType: 'application/pdf', size: 5000, sha256: sha256(bytes), url: `${filesPath(w, file.id)}/content` });
      expect(file.createdAt).toMatch(ISO_UTC);
      expect(expectStatus(await w.t.call('GET', res.headers.get('location')!, { token: w.readKey }), 200)).toEqual(file);
    });

    it('a `name` part names the file; an empty file is fine', async () => {
      const res = await upload(w, { bytes: '', filename: 'x.txt', type: 'text/plain' }, { name: '  Résumé 2026.txt ' });
      expect(res.status, res.text).toBe(201);
      expect(res.json).toMatchObject({ name: 'Résumé 2026.txt', size: 0, sha256: sha256(''), mimeType: 'text/plain' });
    });

    it('sniffs the type when the part has none or a generic one', async () => {
      const cases: [Buffer | string, string | undefined, string][] = [
        [PNG, 'application/octet-stream', 'image/png'],
        [PNG, undefined, 'image/png'],
        [Buffer.from('%PDF-1.7\n...'), 'application/octet-stream', 'application/pdf'],
        [Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 '), bytesOf(50)]), undefined, 'image/webp'],
        ['{"a": 1}', undefined, 'application/json'],
        ['just words', 'application/octet-stream', 'text/plain'],
        [bytesOf(300, 9), undefined, 'application/octet-stream'],
        [PNG, 'image/x-custom', 'image/x-custom'],
      ];
      for (const [bytes, type, expected] of cases) {
        const res = await upload(w, { bytes, type, filename: 'blob' });
        expect(res.status, res.text).toBe(201);
        expect(res.json.mimeType, `${type} → ${expected}`).toBe(expected);
      }
    });

    it('400 without a `file` part, with another file part, or with `file` as a plain field', async () => {
      expectBadRequest(await upload(w, null, { name: 'x' }), 'file');
      expectBadRequest(await upload(w, { bytes: 'a' }, { extra: { other: { bytes: 'b' } } }), 'other');
      const form = new FormData();
      form.append('file', 'not a file part');
      const res = await fetch(w.t.url + filesPath(w), { method: 'POST', body: form, headers: { authorization: `Bearer ${w.writeKey}` } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('file');
      expectBadRequest(await upload(w, { bytes: 'a' }, { name: 'n'.repeat(256) }), 'name');
    });

    it('415 for a JSON or plain body; 400 for a multipart body without a boundary', async () => {
      expectError(await w.t.call('POST', filesPath(w), { token: w.writeKey, body: { name: 'x' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      const raw = { raw: 'abc', headers: { 'content-type': 'multipart/form-data', authorization: `Bearer ${w.writeKey}` } };
      expectError(await w.t.call('POST', filesPath(w), raw), 400, 'BAD_REQUEST');
    });

    it('401 → 403 → 404 come before the body is looked at', async () => {
      expectError(await upload(w, { bytes: 'a' }, { token: null }), 401, 'UNAUTHORIZED');
      expectError(await w.t.call('POST', filesPath(w), { token: null, body: {} }), 401, 'UNAUTHORIZED');
      expectError(await upload(w, { bytes: 'a' }, { token: w.readKey }), 403, 'FORBIDDEN');
      expectError(await w.t.call('POST', filesPath(w), { token: w.readKey, body: {} }), 403, 'FORBIDDEN');
      const res = await sendForm(w, 'POST', `/v1/${GHOST}/files`, { bytes: 'a' }, { token: w.t.adminToken });
      expectError(res, 404, 'NOT_FOUND');
      // A key of this project addressing another one: 403 whether or not it exists.
      expectError(await sendForm(w, 'POST', `/v1/${GHOST}/files`, { bytes: 'a' }), 403, 'FORBIDDEN');
    });
  });

  describe('download', () => {
    it('byte-identical, with Content-Type, Content-Length, ETag and Content-Disposition; 304 on If-None-Match', async () => {
      const bytes = bytesOf(2.5 * 1024 * 1024, 11);
      const file = (await upload(w, { bytes, filename: 'photo.png', type: 'image/png' }, { name: '"Café" 1.png' })).json;
      const res = await download(w, file.id);
      expect(res.status).toBe(200);
      expect(res.body.equals(bytes)).toBe(true);
      expect(sha256(res.body)).toBe(file.sha256);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(res.headers.get('etag')).toBe(`"${file.sha256}"`);
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="_Caf__ 1.png"; filename*=UTF-8''%22Caf%C3%A9%22%201.png`);
      const cached = await download(w, file.id, { 'if-none-match': `"${file.sha256}"` });
      expect(cached.status).toBe(304);
      expect(cached.body.length).toBe(0);
      const head = await fetch(`${w.t.url}${filesPath(w, file.id)}/content`, { method: 'HEAD', headers: { authorization: `Bearer ${w.readKey}` } });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(bytes.length));
    });

    it('range requests: 206 with the right slice and Content-Range (across chunk boundaries); 416 when unsatisfiable', async () => {
      const size = 2.5 * 1024 * 1024;
      const bytes = bytesOf(size, 5);
      const file = (await upload(w, { bytes, type: 'application/octet-stream' })).json;
      const MiB = 1024 * 1024;
      const ranges: [string, number, number][] = [
        ['bytes=0-0', 0, 0],
        ['bytes=10-19', 10, 19],
        [`bytes=${MiB - 5}-${2 * MiB + 4}`, MiB - 5, 2 * MiB + 4],
        [`bytes=${size - 100}-`, size - 100, size - 1],
        ['bytes=-7', size - 7, size - 1],
        [`bytes=100-${size * 2}`, 100, size - 1],
      ];
      for (const [header, start, end] of ranges) {
        const res = await download(w, file.id, { range: header });
        expect(res.status, header).toBe(206);
        expect(res.headers.get('content-range'), header).toBe(`bytes ${start}-${end}/${size}`);
        expect(res.headers.get('content-length'), header).toBe(String(end - start + 1));
        expect(res.body.equals(bytes.subarray(start, end + 1)), header).toBe(true);
      }
      for (const header of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
        const res = await download(w, file.id, { range: header });
        expect(res.status, header).toBe(416);
        expect(res.headers.get('content-range')).toBe(`bytes */${size}`);
        expect(JSON.parse(res.body.toString()).error.code).toBe('BAD_REQUEST');
      }
      // Unparseable, several ranges, or a stale If-Range: the whole file.
      const ignored: Record<string, string>[] = [{ range: 'bytes=5-1' }, { range: 'bytes=0-1,5-6' }, { range: 'items=0-1' }, { range: 'bytes=0-1', 'if-range': '"stale"' }];
      for (const headers of ignored) {
        const res = await download(w, file.id, headers);
        expect(res.status, JSON.stringify(headers)).toBe(200);
        expect(res.body.length).toBe(size);
      }
      const fresh = await download(w, file.id, { range: 'bytes=0-1', 'if-range': `"${file.sha256}"` });
      expect(fresh.status).toBe(206);
    });

    it('HTML and SVG download as attachments', async () => {
      const html = (await upload(w, { bytes: '<!doctype html><script>alert(1)</script>', filename: 'x.html', type: 'text/html' })).json;
      expect((await download(w, html.id)).headers.get('content-disposition')).toMatch(/^attachment;/);
    });

    it('401, 403 (other project key), 404 unknown file; 405 for other methods', async () => {
      const file = (await upload(w, { bytes: 'x' })).json;
      const content = `${filesPath(w, file.id)}/content`;
      expectError(await w.t.call('GET', content, { token: null }), 401, 'UNAUTHORIZED');
      expectError(await w.t.call('GET', `/v1/${GHOST}/files/${file.id}/content`, { token: w.readKey }), 403, 'FORBIDDEN');
      expectError(await w.t.call('GET', `${filesPath(w, GHOST)}/content`, { token: w.readKey }), 404, 'NOT_FOUND');
      expectError(await w.t.call('GET', `${filesPath(w, 'nope')}/content`, { token: w.readKey }), 404, 'NOT_FOUND');
      const wrong = await w.t.call('DELETE', content);
      expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
      expect(wrong.headers.get('allow')).toBe('GET');
    });
  });

  describe('list, read, rename', () => {
    it('lists with the pagination envelope and ?mimeType= (exact or family/*)', async () => {
      const pr = await w.t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Media' } });
      const other = { ...w, projectId: pr.json.id, writeKey: w.t.adminToken };
      for (const [name, type] of [['a.png', 'image/png'], ['b.jpg', 'image/jpeg'], ['c.pdf', 'application/pdf']]) {
        expect((await upload(other, { bytes: name, filename: name, type })).status).toBe(201);
      }
      const base = `/v1/${pr.json.id}/files`;
      const all = expectStatus(await w.t.call('GET', `${base}?size=2`), 200);
      expect(all.pagination).toEqual({ page: 1, size: 2, total: 3, pages: 2, hasNext: true });
      expect(all.list.map((f: { name: string }) => f.name)).toEqual(['a.png', 'b.jpg']);
      all.list.forEach(expectFileShape);
      const images = expectStatus(await w.t.call('GET', `${base}?mimeType=${encodeURIComponent('image/*')}`), 200);
      expect(images.list.map((f: { name: string }) => f.name)).toEqual(['a.png', 'b.jpg']);
      const pdf = expectStatus(await w.t.call('GET', `${base}?mimeType=application/pdf`), 200);
      expect(pdf.list.map((f: { name: string }) => f.name)).toEqual(['c.pdf']);
      expectError(await w.t.call('GET', `${base}?size=5000`), 400, 'INVALID_QUERY');
    });

    it('JSON PUT renames (200, full object); 404 before 400; 400 for a bad name', async () => {
      const file = (await upload(w, { bytes: 'rename me', filename: 'old.txt', type: 'text/plain' })).json;
      const renamed = expectStatus(await w.t.call('PUT', filesPath(w, file.id), { token: w.writeKey, body: { name: 'new.txt' } }), 200);
      expect(renamed).toMatchObject({ id: file.id, name: 'new.txt', sha256: file.sha256, size: file.size });
      expectBadRequest(await w.t.call('PUT', filesPath(w, file.id), { token: w.writeKey, body: { name: '' } }), 'name');
      expectBadRequest(await w.t.call('PUT', filesPath(w, file.id), { token: w.writeKey, body: { name: 5 } }), 'name');
      expectError(await w.t.call('PUT', filesPath(w, GHOST), { token: w.writeKey, body: { name: 5 } }), 404, 'NOT_FOUND');
      expectError(await w.t.call('GET', filesPath(w, GHOST), { token: w.readKey }), 404, 'NOT_FOUND');
      expectError(await w.t.call('PUT', filesPath(w, file.id), { token: w.readKey, body: { name: 'x' } }), 403, 'FORBIDDEN');
    });
  });

  describe('replace (multipart PUT)', () => {
    it('new bytes, same id; the name stays unless a name part is sent; the old bytes are gone', async () => {
      const first = (await upload(w, { bytes: bytesOf(3 * 1024 * 1024, 1), filename: 'v1.bin' })).json;
      const before = await storedState(w);
      const next = bytesOf(1234, 2);
      const res = await sendForm(w, 'PUT', filesPath(w, first.id), { bytes: next, filename: 'v2.png', type: 'image/png' });
      const replaced = expectStatus(res, 200);
      expect(replaced).toMatchObject({ id: first.id, name: 'v1.bin', size: 1234, sha256: sha256(next), mimeType: 'image/png', createdAt: first.createdAt });
      expect(replaced.updatedAt > first.updatedAt).toBe(true);
      expect((await download(w, first.id)).body.equals(next)).toBe(true);
      const after = await storedState(w);
      const kept = ({ rows, blobs, disk, objects }: typeof after) => ({ rows, blobs, disk, objects });
      expect(kept(after)).toEqual(kept(before));
      expect(after.chunks).toBe(before.chunks - (driver === 'postgres' ? 3 - 1 : 0));
      const named = await sendForm(w, 'PUT', filesPath(w, first.id), { bytes: 'v3' }, { name: 'final.txt' });
      expect(expectStatus(named, 200).name).toBe('final.txt');
    });

    it('404 unknown file, 403 read key, 401, 400 without a file part; a failed replace keeps the old bytes', async () => {
      const file = (await upload(w, { bytes: 'keep me' })).json;
      expectError(await sendForm(w, 'PUT', filesPath(w, GHOST), { bytes: 'x' }), 404, 'NOT_FOUND');
      expectError(await sendForm(w, 'PUT', filesPath(w, file.id), { bytes: 'x' }, { token: w.readKey }), 403, 'FORBIDDEN');
      expectError(await sendForm(w, 'PUT', filesPath(w, file.id), { bytes: 'x' }, { token: null }), 401, 'UNAUTHORIZED');
      expectBadRequest(await sendForm(w, 'PUT', filesPath(w, file.id), null, { name: 'x' }), 'file');
      expect((await download(w, file.id)).body.toString()).toBe('keep me');
    });
  });

  describe('delete and access', () => {
    it('DELETE is 204; the bytes go with the row; then 404', async () => {
      const file = (await upload(w, { bytes: bytesOf(1.5 * 1024 * 1024, 4) })).json;
      const before = await storedState(w);
      expectNoContent(await w.t.call('DELETE', filesPath(w, file.id), { token: w.writeKey }));
      const after = await storedState(w);
      expect(after.rows).toBe(before.rows - 1);
      if (driver === 'postgres') expect([after.blobs, after.chunks]).toEqual([before.blobs - 1, before.chunks - 2]);
      else if (driver === 's3') expect(after.objects).toBe(before.objects - 1);
      else expect(after.disk).toBe(before.disk - 1);
      expectError(await w.t.call('GET', filesPath(w, file.id)), 404, 'NOT_FOUND');
      expectError(await w.t.call('GET', `${filesPath(w, file.id)}/content`), 404, 'NOT_FOUND');
      expectError(await w.t.call('DELETE', filesPath(w, file.id)), 404, 'NOT_FOUND');
    });

    it('read keys and VIEWERs list, read and download, but every write is 403; EDITORs write', async () => {
      const file = (await upload(w, { bytes: 'acl' })).json;
      const viewer = await person(w.t, w.workspaceId, w.projectId, 'VIEWER');
      const editor = await person(w.t, w.workspaceId, w.projectId, 'EDITOR');
      for (const token of [w.readKey, viewer.token]) {
        expectStatus(await w.t.call('GET', filesPath(w), { token }), 200);
        expectStatus(await w.t.call('GET', filesPath(w, file.id), { token }), 200);
        expect((await download(w, file.id, {}, token)).body.toString()).toBe('acl');
        expectError(await upload(w, { bytes: 'x' }, { token }), 403, 'FORBIDDEN');
        expectError(await sendForm(w, 'PUT', filesPath(w, file.id), { bytes: 'x' }, { token }), 403, 'FORBIDDEN');
        expectError(await w.t.call('PUT', filesPath(w, file.id), { token, body: { name: 'x' } }), 403, 'FORBIDDEN');
        expectError(await w.t.call('DELETE', filesPath(w, file.id), { token }), 403, 'FORBIDDEN');
      }
      const mine = await upload(w, { bytes: 'by editor' }, { token: editor.token });
      expect(mine.status, mine.text).toBe(201);
      expectNoContent(await w.t.call('DELETE', filesPath(w, mine.json.id), { token: editor.token }));
    });
  });
});
