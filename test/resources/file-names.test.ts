import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanFileName, nameFromFilename } from '../../src/modules/files/file-name.js';
import { expectBadRequest, expectStatus } from '../contents/fixture.js';
import { download, filesPath, sendForm, upload, type FilesWorld, startFilesWorld } from './fixture.js';

/**
 * A file's name is a file name, never a path, whichever way it arrives: the multipart `name`
 * part, the file part's own filename, a JSON rename. It is what `Content-Disposition` offers
 * to save under.
 */

describe('cleanFileName', () => {
  it('keeps the last path component, without control or direction characters', () => {
    const cases: [string, string][] = [
      ['../../../../etc/passwd', 'passwd'],
      ['..\\..\\x.txt', 'x.txt'],
      ['C:\\Users\\me\\photo.png', 'photo.png'],
      ['/abs/path/', ''],
      ['a/b\\c', 'c'],
      ['..', ''],
      ['.', ''],
      ['./..', ''],
      ['.env', '.env'],
      ['...', '...'],
      ['  spaced name.txt  ', 'spaced name.txt'],
      ['tab\there\r\nnew\u0000line\u001b[31m.txt', 'tabherenewline[31m.txt'],
      ['del\u007f c1\u0085\u009b.txt', 'del c1.txt'],
      ['evil\u202Etxt.exe', 'eviltxt.exe'],
      ['\u2066iso\u2069late\u200e\u200f.txt', 'isolate.txt'],
      ['Résumé 2026 — 日本.pdf', 'Résumé 2026 — 日本.pdf'],
      ['\u0001\u0002', ''],
      ['../\u0001', ''],
    ];
    for (const [raw, clean] of cases) expect(cleanFileName(raw), JSON.stringify(raw)).toBe(clean);
  });

  it('an upload’s filename is shortened without splitting a character, or replaced when nothing is left', () => {
    expect(nameFromFilename('a'.repeat(300))).toHaveLength(255);
    expect(nameFromFilename(`${'a'.repeat(254)}😀`)).toBe('a'.repeat(254));
    expect(nameFromFilename('../')).toBe('file');
    expect(nameFromFilename(undefined)).toBe('file');
  });
});

describe('file names over HTTP', () => {
  let w: FilesWorld;

  beforeAll(async () => {
    w = await startFilesWorld('local');
  });
  afterAll(async () => w?.close());

  const disposition = async (fileId: string) => (await download(w, fileId)).headers.get('content-disposition');

  /** `name` part → stored name; the download's Content-Disposition (text/plain: inline). */
  const NAMED: [name: string, stored: string, header: string][] = [
    ['../../../../etc/passwd', 'passwd', `inline; filename="passwd"; filename*=UTF-8''passwd`],
    ['..\\..\\x.txt', 'x.txt', `inline; filename="x.txt"; filename*=UTF-8''x.txt`],
    ['a\u0001b\u007f\u001b.txt', 'ab.txt', `inline; filename="ab.txt"; filename*=UTF-8''ab.txt`],
    ['evil\u202Etxt.exe', 'eviltxt.exe', `inline; filename="eviltxt.exe"; filename*=UTF-8''eviltxt.exe`],
  ];

  it('the `name` part is cleaned on create, and served back clean', async () => {
    for (const [name, stored, header] of NAMED) {
      const created = expectStatus(await upload(w, { bytes: 'x', filename: 'upload.txt', type: 'text/plain' }, { name }), 201);
      expect(created.name, JSON.stringify(name)).toBe(stored);
      expect(expectStatus(await w.t.call('GET', filesPath(w, created.id), { token: w.readKey }), 200).name).toBe(stored);
      expect(await disposition(created.id), JSON.stringify(name)).toBe(header);
    }
  });

  it('and on replace (multipart PUT)', async () => {
    const file = expectStatus(await upload(w, { bytes: 'v1', filename: 'first.txt', type: 'text/plain' }), 201);
    for (const [name, stored, header] of NAMED) {
      const replaced = expectStatus(await sendForm(w, 'PUT', filesPath(w, file.id), { bytes: 'v2', filename: 'v2.txt', type: 'text/plain' }, { name }), 200);
      expect(replaced.name, JSON.stringify(name)).toBe(stored);
      expect(await disposition(file.id)).toBe(header);
    }
  });

  it('the file part’s own filename is cleaned by the same rule (Windows paths too)', async () => {
    for (const [filename, stored] of [['C:\\Users\\me\\report.txt', 'report.txt'], ['../../up.txt', 'up.txt'], ['..', 'file']]) {
      const created = expectStatus(await upload(w, { bytes: 'x', filename, type: 'text/plain' }), 201);
      expect(created.name, filename).toBe(stored);
    }
  });

  it('a name with nothing left after cleaning is 400 BAD_REQUEST naming `name`, on create, replace and rename', async () => {
    const file = expectStatus(await upload(w, { bytes: 'keep', filename: 'keep.txt', type: 'text/plain' }), 201);
    for (const name of ['../', '..', '\u0001\u0002', ' / ', '..\\']) {
      expectBadRequest(await upload(w, { bytes: 'x', type: 'text/plain' }, { name }), 'name');
      expectBadRequest(await sendForm(w, 'PUT', filesPath(w, file.id), { bytes: 'x', type: 'text/plain' }, { name }), 'name');
      expectBadRequest(await w.t.call('PUT', filesPath(w, file.id), { token: w.writeKey, body: { name } }), 'name');
    }
    // Nothing was changed by the refusals.
    const after = expectStatus(await w.t.call('GET', filesPath(w, file.id), { token: w.readKey }), 200);
    expect(after.name).toBe('keep.txt');
    expect((await download(w, file.id)).body.toString()).toBe('keep');
  });

  it('a JSON rename is cleaned the same way', async () => {
    const file = expectStatus(await upload(w, { bytes: 'r', filename: 'r.txt', type: 'text/plain' }), 201);
    const renamed = expectStatus(await w.t.call('PUT', filesPath(w, file.id), { token: w.writeKey, body: { name: '../../../../etc/passwd' } }), 200);
    expect(renamed.name).toBe('passwd');
    expect(await disposition(file.id)).toBe(`inline; filename="passwd"; filename*=UTF-8''passwd`);
  });

  it('a name stored before names were cleaned is served clean', async () => {
    const file = expectStatus(await upload(w, { bytes: 'old', filename: 'old.txt', type: 'text/plain' }), 201);
    await w.t.api.deps.pool.query('update file set name = $1 where id = $2', ['../../secret\r\nX-Injected: 1', file.id]);
    expect(await disposition(file.id)).toBe(`inline; filename="secretX-Injected: 1"; filename*=UTF-8''secretX-Injected%3A%201`);
  });
});
