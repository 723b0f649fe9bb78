import { Readable } from 'node:stream';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createS3Client, S3BlobStore } from '../../src/storage/s3.js';
import { startChildProcess, startInProcess } from '../auth/second-process.js';
import { expectError, expectNoContent, expectStatus } from '../contents/fixture.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { clockReaches, until } from '../helpers/until.js';
import { bytesOf, download, filesPath, generated, rawUpload, sendForm, startFilesWorld, upload, type FilesWorld } from './fixture.js';

/**
 * What only the s3 driver has to show (docs/resources.md#storage-drivers); the shared suites (files.test.ts,
 * files-integrity.test.ts) run on it as on the others. Against s3rver, a real S3-protocol server.
 */

const MiB = 1024 * 1024;
/** Second APIs share the first one's rate-limit buckets (in the database): the same generous limits. */
const LIMITS = { RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '20000' };
const PROJECT = '0190b0a0-0000-7000-8000-0000000000aa';

describe('files on the s3 driver', () => {
  let w: FilesWorld;
  let s3: S3TestServer;

  beforeAll(async () => {
    w = await startFilesWorld('s3');
    s3 = w.s3!;
  });
  afterAll(async () => w?.close());

  /** The object of each file row stored by the s3 driver, sorted. */
  const objectsOfRows = async () => {
    const { rows } = await w.t.api.deps.pool.query<{ project_id: string; storage_key: string }>(
      "select project_id, storage_key from file where storage_driver = 's3'",
    );
    return rows.map((r) => `projects/${r.project_id}/${r.storage_key}`).sort();
  };
  const driverOf = async (fileId: string) =>
    (await w.t.api.deps.pool.query<{ storage_driver: string }>('select storage_driver from file where id = $1', [fileId])).rows[0]?.storage_driver;

  it('each file is one object under its project; a replace removes the old object, a delete the current one', async () => {
    const file = expectStatus(await upload(w, { bytes: bytesOf(6 * MiB, 31) }), 201);
    const first = await objectsOfRows();
    expect(first.filter((key) => key.startsWith(`projects/${w.projectId}/`))).toHaveLength(first.length);
    expect(await s3.keys()).toEqual(first);

    const next = bytesOf(1000, 32);
    expectStatus(await sendForm(w, 'PUT', filesPath(w, file.id), { bytes: next }), 200);
    const second = await objectsOfRows();
    expect(second).toHaveLength(first.length);
    expect(await s3.keys()).toEqual(second);
    expect(second).not.toEqual(first);
    expect((await download(w, file.id)).body.equals(next)).toBe(true);

    expectNoContent(await w.t.call('DELETE', filesPath(w, file.id)));
    expect(await s3.keys()).toEqual(await objectsOfRows());
    expect(await s3.keys('staged/')).toEqual([]);
  });

  it('ranges across the parts of a multipart object, one byte, and the last bytes', async () => {
    const size = 12 * MiB + 3;
    const bytes = bytesOf(size, 33);
    const file = expectStatus(await upload(w, { bytes }), 201);
    const ranges: [number, number][] = [
      [0, 0],
      [5 * MiB - 2, 5 * MiB + 1],
      [3 * MiB, 11 * MiB],
      [size - 1, size - 1],
      [7, 7],
    ];
    for (const [start, end] of ranges) {
      const res = await download(w, file.id, { range: `bytes=${start}-${end}` });
      expect(res.status, `${start}-${end}`).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.body.equals(bytes.subarray(start, end + 1)), `${start}-${end}`).toBe(true);
    }
    expect((await download(w, file.id)).body.equals(bytes)).toBe(true);
  });

  it('a file stays readable after STORAGE_DRIVER changes, both ways; without the S3 settings a bucket file is a 500', async () => {
    const inBucket = bytesOf(300_000, 34);
    const file = expectStatus(await upload(w, { bytes: inBucket }), 201);
    expect(await driverOf(file.id)).toBe('s3');

    const local = await startInProcess(w.t, { ...LIMITS, STORAGE_DRIVER: 'local', STORAGE_DIR: w.dir, ...s3.env });
    const noS3 = await startInProcess(w.t, { ...LIMITS, STORAGE_DRIVER: 'local', STORAGE_DIR: w.dir });
    try {
      const viaLocal = { ...w, t: { ...w.t, url: local.url } };
      expect((await download(viaLocal, file.id)).body.equals(inBucket)).toBe(true);
      const onDisk = bytesOf(2000, 35);
      const other = expectStatus(await upload(viaLocal, { bytes: onDisk }), 201);
      expect(await driverOf(other.id)).toBe('local');
      expect((await download(w, other.id)).body.equals(onDisk)).toBe(true);

      const viaNoS3 = { ...w, t: { ...w.t, url: noS3.url } };
      const refused = await download(viaNoS3, file.id);
      expect(refused.status).toBe(500);
      expect(JSON.parse(refused.body.toString()).error.code).toBe('INTERNAL_ERROR');
      expect((await download(viaNoS3, other.id)).body.equals(onDisk)).toBe(true);
    } finally {
      await local.close();
      await noS3.close();
    }
  });

  it('an API process killed (SIGKILL) mid-upload leaves no row without its object; the next start-up sweeps what it staged', async () => {
    const env = { ...LIMITS, STORAGE_DRIVER: 's3', STORAGE_DIR: w.dir, ...s3.env };
    const child = await startChildProcess(w.t, env);
    const viaChild = { ...w, t: { ...w.t, url: child.url } };
    const kept = expectStatus(await upload(viaChild, { bytes: bytesOf(MiB, 36) }), 201);
    const rowsBefore = await objectsOfRows();
    expect(await s3.keys('staged/')).toEqual([]);

    let killedAt = 0;
    const result = await rawUpload(viaChild, generated(64 * MiB), {
      abortAfter: 16 * MiB,
      abortWhen: async () => {
        await until(async () => (await s3.keys('staged/')).length === 1, 10_000, 'the upload to be staged');
        killedAt = Date.now();
        await child.kill!('SIGKILL');
      },
    });
    expect(result.status).toBeNull();
    expect(killedAt).toBeGreaterThan(0);
    expect(await objectsOfRows()).toEqual(rowsBefore);
    expect(await s3.keys('projects/')).toEqual(rowsBefore);
    const [orphan] = await s3.keys('staged/');
    expect(orphan).toMatch(new RegExp(`^staged/${w.projectId}/[0-9a-f-]{36}$`));

    // A staged upload is a leftover once it is older than any upload can last (the age must
    // exceed REQUEST_TIMEOUT_MS); both are short here so that the test need not wait an hour.
    const age = 2000;
    await clockReaches(killedAt + age + 1, 'the staged upload to be older than STAGED_UPLOADS_MAX_AGE_MS');
    const next = await startInProcess(w.t, { ...env, STAGED_UPLOADS_MAX_AGE_MS: String(age), REQUEST_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000' });
    try {
      await until(async () => (await s3.keys('staged/')).length === 0, 10_000, 'the start-up sweep to remove the staged upload');
      expect(await s3.keys('projects/')).toEqual(rowsBefore);
      const viaNext = { ...w, t: { ...w.t, url: next.url } };
      expect((await download(viaNext, kept.id)).body.equals(bytesOf(MiB, 36))).toBe(true);
    } finally {
      await next.close();
    }
  });
});

describe('S3BlobStore staging and sweep', () => {
  let s3: S3TestServer;
  let store: S3BlobStore;

  beforeAll(async () => {
    s3 = await startS3Server();
    store = new S3BlobStore(createS3Client({ bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }), s3.bucket, 50 * MiB);
  });
  afterAll(async () => s3?.close());

  it('sweeps staged uploads older than the age with the bytes they name, past one page of 1,000 keys; leaves younger ones and committed objects', async () => {
    const committed = await store.stage(PROJECT, Readable.from([Buffer.from('kept')]));
    await store.commit(undefined, PROJECT, committed);
    const staged = await store.stage(PROJECT, Readable.from([Buffer.from('left behind')]));
    // Markers of uploads whose bytes never arrived, as a process that died before them leaves.
    const markers = Array.from({ length: 1004 }, (_, i) => `staged/${PROJECT}/0190b0a0-0000-7000-8000-${String(i).padStart(12, '0')}`);
    for (let i = 0; i < markers.length; i += 50) {
      await Promise.all(markers.slice(i, i + 50).map((Key) => s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: '', ContentLength: 0 }))));
    }
    expect(await store.sweep(60 * 60 * 1000)).toBe(0);
    expect(await s3.keys('staged/')).toHaveLength(1005);

    expect(await store.sweep(0)).toBe(1005);
    expect(await s3.keys()).toEqual([`projects/${PROJECT}/${committed}`]);
    // The sweep took the staged bytes: committing them now must fail, not point a row at nothing.
    await expect(store.commit(undefined, PROJECT, staged)).rejects.toThrow(/is gone/);
    expect(Buffer.concat(await (await store.open(PROJECT, committed, 4)).toArray()).toString()).toBe('kept');
  });

  it('a failed source removes what was staged and rejects with the source error', async () => {
    async function* failing() {
      yield bytesOf(6 * MiB, 37);
      throw new Error('client went away');
    }
    await expect(store.stage(PROJECT, Readable.from(failing()))).rejects.toThrow('client went away');
    expect(await s3.keys(`staged/${PROJECT}/`)).toEqual([]);
  });

  it('a project purge removes its objects and no other project’s', async () => {
    const other = '0190b0a0-0000-7000-8000-0000000000bb';
    const mine = await store.stage(PROJECT, Readable.from([Buffer.from('a')]));
    await store.commit(undefined, PROJECT, mine);
    await store.stage(PROJECT, Readable.from([Buffer.from('b')]));
    const theirs = await store.stage(other, Readable.from([Buffer.from('c')]));
    await store.commit(undefined, other, theirs);
    await store.removeProject(PROJECT);
    expect((await s3.keys()).filter((key) => key.includes(PROJECT))).toEqual([]);
    expect(await s3.keys(`projects/${other}/`)).toEqual([`projects/${other}/${theirs}`]);
  });
});

describe('S3 configuration', () => {
  it('STORAGE_DRIVER=s3 needs S3_BUCKET; keys go in pairs; defaults for the region and path style', () => {
    expect(() => loadConfig({ STORAGE_DRIVER: 's3' })).toThrow(/^Invalid configuration: S3_BUCKET: required when STORAGE_DRIVER is s3$/);
    expect(() => loadConfig({ STORAGE_DRIVER: 's3', S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'AKIA' })).toThrow(/^Invalid configuration: S3_SECRET_ACCESS_KEY: /);
    expect(() => loadConfig({ S3_BUCKET: 'files', S3_ENDPOINT: 'ftp://minio:9000' })).toThrow(/^Invalid configuration: S3_ENDPOINT: /);
    expect(() => loadConfig({ S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(/^Invalid configuration: S3_FORCE_PATH_STYLE: /);
    expect(() => loadConfig({ STAGED_UPLOADS_MAX_AGE_MS: '60000', REQUEST_TIMEOUT_MS: '120000' })).toThrow(
      /^Invalid configuration: STAGED_UPLOADS_MAX_AGE_MS: must exceed REQUEST_TIMEOUT_MS$/,
    );
    const config = loadConfig({ STORAGE_DRIVER: 's3', S3_BUCKET: 'files', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true' });
    expect(config).toMatchObject({ STORAGE_DRIVER: 's3', S3_BUCKET: 'files', S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: true, STAGED_UPLOADS_MAX_AGE_MS: 3_600_000 });
    expect(loadConfig({}).S3_FORCE_PATH_STYLE).toBe(false);
  });

  it('an upload to a bucket that does not exist is a 500 with nothing kept', async () => {
    const w = await startFilesWorld('s3');
    try {
      const missing = await startInProcess(w.t, { ...LIMITS, STORAGE_DRIVER: 's3', STORAGE_DIR: w.dir, ...w.s3!.env, S3_BUCKET: 'no-such-bucket' });
      try {
        const res = await upload({ ...w, t: { ...w.t, url: missing.url } }, { bytes: 'x' });
        expectError(res, 500, 'INTERNAL_ERROR');
        expect((await w.t.call('GET', filesPath(w))).json.pagination.total).toBe(0);
      } finally {
        await missing.close();
      }
    } finally {
      await w.close();
    }
  });
});
