import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { Job } from 'pg-boss';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person } from '../auth/fixture.js';
import { expectBadRequest, expectError, expectNoContent, GHOST } from '../contents/fixture.js';
import { toCallResult, type CallResult } from '../helpers/api.js';
import { ImageDerivatives, sweepUnusedDerivatives } from '../../src/modules/images/derivative.service.js';
import { ImageTransformer } from '../../src/modules/images/image-transformer.js';
import { resolveImageRequest } from '../../src/modules/images/image-request.js';
import type { PurgeJob } from '../../src/jobs/queues.js';
import { createLogger } from '../../src/shared/logger.js';
import { createPurgeHandler } from '../../workers/handlers/purge.js';
import { bytesOf, DRIVERS, filesPath, sendForm, startFilesWorld, upload, type FilesWorld } from './fixture.js';

/**
 * Image transformations (docs/resources.md#image-transformations): `GET .../files/{fileId}/content?w=&h=&fit=&format=&q=` on
 * real images made by sharp, against the real API; derived images cached through both storage
 * drivers.
 */

type Format = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif' | 'tiff';

/** A `width` × `height` image: a colour wash with a dark square, so that crops and resizes differ. */
async function picture(width: number, height: number, format: Format = 'jpeg', options: { alpha?: boolean } = {}): Promise<Buffer> {
  const channels = options.alpha ? 4 : 3;
  const base = sharp({ create: { width, height, channels, background: { r: 220, g: 120, b: 40, alpha: 1 } } });
  const square = await sharp({ create: { width: Math.ceil(width / 4), height: Math.ceil(height / 4), channels: 3, background: '#203040' } }).png().toBuffer();
  return base.composite([{ input: square, left: 0, top: 0 }]).toFormat(format).toBuffer();
}

const TYPES: Record<Format, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif', gif: 'image/gif', tiff: 'image/tiff' };

async function uploadImage(w: FilesWorld, bytes: Buffer, type: string, filename = 'photo.jpg'): Promise<{ id: string; sha256: string; size: number }> {
  const res = await upload(w, { bytes, type, filename });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** GET (or HEAD) the content of a file with a query string; the body as bytes. */
async function content(w: FilesWorld, fileId: string, query: string, options: { headers?: Record<string, string>; token?: string | null; method?: string } = {}) {
  const token = options.token === undefined ? w.readKey : options.token;
  const res = await fetch(`${w.t.url}${filesPath(w, fileId)}/content${query ? `?${query}` : ''}`, {
    method: options.method ?? 'GET',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers },
  });
  const body = Buffer.from(await res.arrayBuffer());
  const nullBody = res.status === 304 || options.method === 'HEAD';
  const call: CallResult = await toCallResult(new Response(nullBody ? null : body, { status: res.status, headers: res.headers }));
  return { status: res.status, headers: res.headers, body, call };
}

/** The image answered for a query: 200, and what sharp reads in it. */
async function transformed(w: FilesWorld, fileId: string, query: string) {
  const res = await content(w, fileId, query);
  expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
  expect(res.headers.get('content-length')).toBe(String(res.body.length));
  const meta = await sharp(res.body).metadata();
  return { ...res, meta };
}

const rowsOf = async (w: FilesWorld, sha256?: string) =>
  (
    await w.t.api.deps.pool.query<{ params: string; storage_driver: string; storage_key: string; size: string; mime_type: string }>(
      `select params, storage_driver, storage_key, size, mime_type from file_derivative where project_id = $1 ${sha256 ? 'and sha256 = $2' : ''} order by params`,
      sha256 ? [w.projectId, sha256] : [w.projectId],
    )
  ).rows;

/** Where the s3 driver keeps a committed blob of the project (src/storage/s3.ts). */
const objectKey = (w: FilesWorld, key: string) => `projects/${w.projectId}/${key}`;

/** The stored bytes of a derivative, read and written straight in the driver's own place. */
async function storedBytes(w: FilesWorld, key: string): Promise<Buffer | null> {
  if (w.driver === 'local') return readFile(path.join(w.dir, w.projectId, key)).catch(() => null);
  if (w.s3) {
    const object = await w.s3.client.send(new GetObjectCommand({ Bucket: w.s3.bucket, Key: objectKey(w, key) })).catch(() => null);
    return object ? Buffer.from(await object.Body!.transformToByteArray()) : null;
  }
  const { rows } = await w.t.api.deps.pool.query<{ data: Buffer }>('select data from file_chunk where blob_id = $1 order by seq', [key]);
  return rows.length === 0 ? null : Buffer.concat(rows.map((r) => r.data));
}

async function overwriteStored(w: FilesWorld, key: string, bytes: Buffer): Promise<void> {
  const pool = w.t.api.deps.pool;
  if (w.driver === 'local') await writeFile(path.join(w.dir, w.projectId, key), bytes);
  else if (w.s3) await w.s3.client.send(new PutObjectCommand({ Bucket: w.s3.bucket, Key: objectKey(w, key), Body: bytes }));
  else {
    await pool.query('delete from file_chunk where blob_id = $1 and seq > 0', [key]);
    await pool.query('update file_chunk set data = $2 where blob_id = $1 and seq = 0', [key, bytes]);
  }
  await pool.query('update file_derivative set size = $2 where storage_key = $1', [key, bytes.length]);
}

describe('image transformations: parameters, defaults and errors', () => {
  let w: FilesWorld;
  let jpeg: { id: string; sha256: string };

  beforeAll(async () => {
    w = await startFilesWorld('local');
    jpeg = await uploadImage(w, await picture(400, 300), 'image/jpeg');
  });
  afterAll(async () => w?.close());

  it('w alone keeps the aspect ratio and the original format (JPEG), quality 80', async () => {
    const { meta, headers, body } = await transformed(w, jpeg.id, 'w=200');
    expect(meta).toMatchObject({ format: 'jpeg', width: 200, height: 150 });
    expect(headers.get('content-type')).toBe('image/jpeg');
    expect(headers.get('etag')).toBe(`"${jpeg.sha256}-v1-w200-q80.jpeg"`);
    // q=80 is the default: the same derived image, the same ETag.
    const explicit = await transformed(w, jpeg.id, 'w=200&q=80');
    expect(explicit.headers.get('etag')).toBe(headers.get('etag'));
    expect(explicit.body.equals(body)).toBe(true);
  });

  it('h alone keeps the aspect ratio', async () => {
    expect((await transformed(w, jpeg.id, 'h=60')).meta).toMatchObject({ width: 80, height: 60 });
  });

  it('w and h: cover by default (exactly that size, cropped); contain (padded); inside (within)', async () => {
    expect((await transformed(w, jpeg.id, 'w=100&h=100')).meta).toMatchObject({ width: 100, height: 100 });
    expect((await transformed(w, jpeg.id, 'w=100&h=100&fit=cover')).meta).toMatchObject({ width: 100, height: 100 });
    const contain = await transformed(w, jpeg.id, 'w=100&h=100&fit=contain&format=png');
    expect(contain.meta).toMatchObject({ width: 100, height: 100, hasAlpha: true });
    // The 4:3 image fills the width; the bands above and below are transparent.
    const { data, info } = await sharp(contain.body).raw().toBuffer({ resolveWithObject: true });
    const alphaAt = (x: number, y: number) => data[(y * info.width + x) * info.channels + 3];
    expect(alphaAt(50, 2)).toBe(0);
    expect(alphaAt(50, 50)).toBe(255);
    expect((await transformed(w, jpeg.id, 'w=100&h=100&fit=inside')).meta).toMatchObject({ width: 100, height: 75 });
    // JPEG has no transparency: contain pads with white.
    const white = await transformed(w, jpeg.id, 'w=100&h=100&fit=contain');
    const pixel = await sharp(white.body).extract({ left: 50, top: 2, width: 1, height: 1 }).raw().toBuffer();
    expect([...pixel].every((v) => v > 240)).toBe(true);
  });

  it('cover crops the middle: the dark corner square is cut off a tall crop', async () => {
    const { body } = await transformed(w, jpeg.id, 'w=100&h=300&fit=cover&format=png');
    expect((await sharp(body).metadata())).toMatchObject({ width: 100, height: 300 });
    const corner = await sharp(body).extract({ left: 0, top: 0, width: 1, height: 1 }).raw().toBuffer();
    expect(corner[0]).toBeGreaterThan(150);
  });

  it('never enlarges: beyond the original, the requested box shrinks to the original’s resolution', async () => {
    expect((await transformed(w, jpeg.id, 'w=2000')).meta).toMatchObject({ width: 400, height: 300 });
    expect((await transformed(w, jpeg.id, 'w=800&h=4000&fit=inside')).meta).toMatchObject({ width: 400, height: 300 });
    // cover 800×800 of 400×300: the largest square the original holds.
    expect((await transformed(w, jpeg.id, 'w=800&h=800')).meta).toMatchObject({ width: 300, height: 300 });
    // contain 800×800: the whole original, unscaled, in a square.
    expect((await transformed(w, jpeg.id, 'w=800&h=800&fit=contain')).meta).toMatchObject({ width: 400, height: 400 });
  });

  it('format: webp, avif, jpeg, png, with their Content-Type and a file name to match', async () => {
    const expected = { webp: ['webp', 'image/webp'], avif: ['heif', 'image/avif'], jpeg: ['jpeg', 'image/jpeg'], png: ['png', 'image/png'] };
    for (const [format, [decoded, type]] of Object.entries(expected)) {
      const { meta, headers } = await transformed(w, jpeg.id, `w=120&format=${format}`);
      expect(meta.format, format).toBe(decoded);
      if (format === 'avif') expect(meta.compression).toBe('av1');
      expect(meta.width).toBe(120);
      expect(headers.get('content-type')).toBe(type);
      expect(headers.get('content-disposition')).toContain(`filename="photo.${format === 'jpeg' ? 'jpg' : format}"`);
    }
    // format alone converts at the original size.
    expect((await transformed(w, jpeg.id, 'format=webp')).meta).toMatchObject({ format: 'webp', width: 400, height: 300 });
  });

  it('q changes the encoding: a lower quality is smaller, and its own ETag', async () => {
    const low = await transformed(w, jpeg.id, 'w=300&format=webp&q=5');
    const high = await transformed(w, jpeg.id, 'w=300&format=webp&q=100');
    expect(low.body.length).toBeLessThan(high.body.length);
    expect(low.headers.get('etag')).not.toBe(high.headers.get('etag'));
    // PNG is lossless: q does not change it (nor its ETag).
    const a = await transformed(w, jpeg.id, 'w=50&format=png&q=5');
    const b = await transformed(w, jpeg.id, 'w=50&format=png');
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
  });

  it('every original type: PNG, WebP, AVIF keep their format; GIF and TIFF become PNG', async () => {
    const cases: [Format, string][] = [['png', 'png'], ['webp', 'webp'], ['avif', 'heif'], ['gif', 'png'], ['tiff', 'png']];
    for (const [format, decoded] of cases) {
      const file = await uploadImage(w, await picture(300, 200, format, { alpha: format === 'png' }), TYPES[format], `pic.${format}`);
      const { meta, headers } = await transformed(w, file.id, 'w=150');
      expect(meta, format).toMatchObject({ format: decoded, width: 150, height: 100 });
      expect(headers.get('content-type')).toBe(decoded === 'heif' ? 'image/avif' : `image/${decoded}`);
    }
  });

  it('EXIF orientation is applied: a portrait photo stored sideways comes out upright', async () => {
    const sideways = await sharp(await picture(400, 300)).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const file = await uploadImage(w, sideways, 'image/jpeg');
    expect((await transformed(w, file.id, 'w=150')).meta).toMatchObject({ width: 150, height: 200 });
  });

  it('headers: whole image (Range ignored, Accept-Ranges: none), private no-cache, HEAD has the same length', async () => {
    const res = await content(w, jpeg.id, 'w=64', { headers: { range: 'bytes=0-9' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('none');
    expect(res.headers.get('content-range')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect((await sharp(res.body).metadata()).width).toBe(64);
    const head = await content(w, jpeg.id, 'w=64', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(res.body.length));
    expect(head.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('ETag per parameters, unlike the original’s; If-None-Match gives 304 without a body', async () => {
    const a = await transformed(w, jpeg.id, 'w=90');
    const b = await transformed(w, jpeg.id, 'w=91');
    const etag = a.headers.get('etag')!;
    expect(etag).not.toBe(b.headers.get('etag'));
    expect(etag).not.toBe(`"${jpeg.sha256}"`);
    const cached = await content(w, jpeg.id, 'w=90', { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
    expect(cached.headers.get('etag')).toBe(etag);
    // The original's ETag does not validate a derived image, nor the other way round.
    expect((await content(w, jpeg.id, 'w=90', { headers: { 'if-none-match': `"${jpeg.sha256}"` } })).status).toBe(200);
    expect((await content(w, jpeg.id, '', { headers: { 'if-none-match': etag } })).status).toBe(200);
  });

  it('without parameters the download is unchanged: the original bytes, ranges, its ETag', async () => {
    const original = await picture(400, 300);
    const full = await content(w, jpeg.id, '');
    expect(full.body.equals(original)).toBe(true);
    expect(full.headers.get('etag')).toBe(`"${jpeg.sha256}"`);
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    const part = await content(w, jpeg.id, 'v=2', { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(part.body.equals(original.subarray(0, 10))).toBe(true);
  });

  it('400 BAD_REQUEST naming the parameter for every bad value', async () => {
    const bad: [string, string][] = [
      ['w=0', 'w'], ['w=4097', 'w'], ['w=abc', 'w'], ['w=1.5', 'w'], ['w=', 'w'], ['w=012', 'w'], ['w=-5', 'w'], ['w=1e3', 'w'], ['w=10&w=20', 'w'],
      ['h=0', 'h'], ['h=5000', 'h'], ['h=x', 'h'],
      ['w=10&h=10&fit=fill', 'fit'], ['fit=', 'fit'],
      ['format=gif', 'format'], ['format=WEBP', 'format'], ['format=', 'format'],
      ['q=0', 'q'], ['q=101', 'q'], ['q=high', 'q'],
    ];
    for (const [query, name] of bad) {
      const error = expectBadRequest((await content(w, jpeg.id, query)).call, name);
      expect(error.message, query).toMatch(new RegExp(`^${name} `));
    }
    // Array-shaped parameters are refused, not dropped (which served the original).
    for (const [query, name] of [['w[]=10', 'w'], ['h[0]=10', 'h'], ['fit[a][b]=cover&w=10&h=10', 'fit'], ['format[]=webp', 'format'], ['q[x]=50&w=10', 'q']] as const) {
      const error = expectBadRequest((await content(w, jpeg.id, query)).call, name);
      expect(error.message, query).toMatch(new RegExp(`^${name} `));
    }
    // The limits themselves are fine.
    expect((await transformed(w, jpeg.id, 'w=4096&h=1&q=1&format=jpeg')).meta.height).toBe(1);
    expect((await transformed(w, jpeg.id, 'w=1&q=100')).meta.width).toBe(1);
  });

  it('parameters on a file that is not an image: 400 naming the parameter; the plain download still works', async () => {
    const pdf = (await upload(w, { bytes: Buffer.from('%PDF-1.7\n...'), type: 'application/pdf', filename: 'a.pdf' })).json;
    const svg = (await upload(w, { bytes: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml', filename: 'a.svg' })).json;
    for (const [file, query, name] of [[pdf, 'w=100', 'w'], [pdf, 'format=webp', 'format'], [pdf, 'q=50', 'q'], [pdf, 'fit=cover', 'fit'], [svg, 'h=10', 'h']] as const) {
      const error = expectBadRequest((await content(w, file.id, query)).call, name);
      expect(error.message).toContain(file === pdf ? 'application/pdf' : 'image/svg+xml');
    }
    expect((await content(w, pdf.id, '')).status).toBe(200);
  });

  it('401, 403 (another project’s key), 404 (unknown file) come before 400', async () => {
    expectError((await content(w, jpeg.id, 'w=0', { token: null })).call, 401, 'UNAUTHORIZED');
    // This project's key addressing another project, existing or not.
    expectError(await w.t.call('GET', `/v1/${GHOST}/files/${jpeg.id}/content?w=0`, { token: w.readKey }), 403, 'FORBIDDEN');
    expectError((await content(w, GHOST, 'w=0')).call, 404, 'NOT_FOUND');
  });

  it('read keys, read_write keys and project VIEWERs transform as they download', async () => {
    const viewer = await person(w.t, w.workspaceId, w.projectId, 'VIEWER');
    for (const token of [w.readKey, w.writeKey, viewer.token, w.t.adminToken]) {
      const res = await content(w, jpeg.id, 'w=32', { token });
      expect(res.status).toBe(200);
      expect((await sharp(res.body).metadata()).width).toBe(32);
    }
  });

  it('422 for bytes that are not a readable image, whatever their stored type', async () => {
    const cases: [Buffer | string, string][] = [
      [bytesOf(3000, 4), 'image/jpeg'],
      // A JPEG cut in half.
      [(await picture(400, 300)).subarray(0, (await picture(400, 300)).length / 2), 'image/jpeg'],
      // SVG (or PDF) bytes stored as a PNG: never handed to those decoders.
      ['<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>', 'image/png'],
      ['', 'image/png'],
    ];
    for (const [bytes, type] of cases) {
      const file = (await upload(w, { bytes, type, filename: 'x' })).json;
      const error = expectError((await content(w, file.id, 'w=50')).call, 422, 'VALIDATION_ERROR');
      expect(error.details).toEqual([{ field: 'file', message: error.message }]);
      // A clear message of our own, not the decoder's parser text.
      expect(error.message).toMatch(/^the file is not an image that can be transformed/);
      expect(error.message).not.toMatch(/vips|sharp|Input buffer|unsupported image format|premature|marker|\(/i);
    }
  });
});

describe('image transformations: the pixel limit (IMAGE_MAX_PIXELS)', () => {
  let w: FilesWorld;

  beforeAll(async () => {
    w = await startFilesWorld('local', { IMAGE_MAX_PIXELS: '10000' });
  });
  afterAll(async () => w?.close());

  it('an image over the limit is 422 naming it, before decoding; one at the limit is transformed', async () => {
    const big = await uploadImage(w, await picture(101, 100, 'png'), 'image/png');
    const error = expectError((await content(w, big.id, 'w=10')).call, 422, 'VALIDATION_ERROR');
    expect(error.message).toContain('IMAGE_MAX_PIXELS (10000)');
    expect(error.message).toContain('101×100');
    expect(await rowsOf(w)).toEqual([]);
    const fits = await uploadImage(w, await picture(100, 100, 'png'), 'image/png');
    expect((await transformed(w, fits.id, 'w=10')).meta.width).toBe(10);
    // The plain download of the large one is not concerned.
    expect((await content(w, big.id, '')).status).toBe(200);
  });
});

describe.each(DRIVERS)('derived images cached on the %s driver', (driver) => {
  let w: FilesWorld;

  beforeAll(async () => {
    w = await startFilesWorld(driver);
  });
  afterAll(async () => w?.close());

  it('the first request stores the derived image once; later ones stream it from storage', async () => {
    const file = await uploadImage(w, await picture(400, 300), 'image/jpeg');
    const first = await transformed(w, file.id, 'w=100&format=webp');
    const rows = await rowsOf(w, file.sha256);
    expect(rows).toEqual([{ params: 'v1-w100-q80.webp', storage_driver: driver, storage_key: expect.any(String), size: String(first.body.length), mime_type: 'image/webp' }]);
    expect((await storedBytes(w, rows[0].storage_key))?.equals(first.body)).toBe(true);
    // Proof that a repeat is read from storage, not computed again: change the stored bytes.
    const marker = await sharp({ create: { width: 7, height: 7, channels: 3, background: '#00ff00' } }).webp().toBuffer();
    await overwriteStored(w, rows[0].storage_key, marker);
    const again = await content(w, file.id, 'w=100&format=webp');
    expect(again.body.equals(marker)).toBe(true);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await rowsOf(w, file.sha256)).toHaveLength(1);
  });

  it('a stored derived image that went missing is computed and stored again', async () => {
    const file = await uploadImage(w, await picture(300, 300), 'image/jpeg');
    await transformed(w, file.id, 'w=30');
    const [lost] = await rowsOf(w, file.sha256);
    await w.t.api.deps.storage.of(driver).remove(w.projectId, lost.storage_key);
    expect((await transformed(w, file.id, 'w=30')).meta.width).toBe(30);
    const [again] = await rowsOf(w, file.sha256);
    expect(again.storage_key).not.toBe(lost.storage_key);
    expect(await storedBytes(w, again.storage_key)).not.toBeNull();
  });

  it('concurrent first requests: one row and one stored blob, in one process or across two', async () => {
    const file = await uploadImage(w, await picture(500, 400), 'image/jpeg');
    const answers = await Promise.all(Array.from({ length: 6 }, () => content(w, file.id, 'w=120&format=png')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.every((a) => a.body.equals(answers[0].body))).toBe(true);
    expect(await rowsOf(w, file.sha256)).toHaveLength(1);

    // Two API processes: each computes (each has its own in-flight map); one row wins and the
    // other's blob is removed.
    const deps = w.t.api.deps;
    const second = new ImageDerivatives({ ...deps, transformer: new ImageTransformer({ maxPixels: 1e8, concurrency: 2 }) });
    const stored = await deps.pool.query<{ storage_key: string }>('select storage_key from file where id = $1', [file.id]);
    const source = { projectId: w.projectId, fileId: file.id, sha256: file.sha256, size: file.size, store: deps.storage.of(driver), storageKey: stored.rows[0].storage_key, storageProjectId: w.projectId };
    const request = resolveImageRequest({ given: ['w'], width: 77 }, 'image/jpeg');
    const [a, b] = await Promise.all([deps.images.derive(source, request, true), second.derive(source, request, true)]);
    expect(a.size).toBe(b.size);
    a.body?.resume();
    b.body?.resume();
    const rows = await rowsOf(w, file.sha256);
    expect(rows.map((r) => r.params)).toEqual(['v1-w120.png', 'v1-w77-q80.jpeg']);
    expect(await blobCount(w)).toBe(await expectedBlobs(w));
  });

  it('replacing the file changes the ETag and the image, and removes the old derived images', async () => {
    const file = await uploadImage(w, await picture(400, 200), 'image/jpeg');
    const before = await transformed(w, file.id, 'w=100');
    expect(before.meta.height).toBe(50);
    const [old] = await rowsOf(w, file.sha256);
    const replaced = await sendForm(w, 'PUT', filesPath(w, file.id), { bytes: await picture(200, 200, 'png'), type: 'image/png', filename: 'new.png' });
    expect(replaced.status, replaced.text).toBe(200);
    const after = await transformed(w, file.id, 'w=100');
    expect(after.meta).toMatchObject({ width: 100, height: 100, format: 'png' });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.headers.get('etag')).toBe(`"${replaced.json.sha256}-v1-w100.png"`);
    // The old ETag no longer matches.
    expect((await content(w, file.id, 'w=100', { headers: { 'if-none-match': before.headers.get('etag')! } })).status).toBe(200);
    expect(await rowsOf(w, file.sha256)).toEqual([]);
    expect(await storedBytes(w, old.storage_key)).toBeNull();
    expect(await blobCount(w)).toBe(await expectedBlobs(w));
  });

  it('deleting a file removes its derived images, rows and blobs; files with the same bytes share them until the last goes', async () => {
    const bytes = await picture(320, 240);
    const one = await uploadImage(w, bytes, 'image/jpeg');
    const two = await uploadImage(w, bytes, 'image/jpeg');
    await transformed(w, one.id, 'w=32');
    await transformed(w, two.id, 'w=32');
    await transformed(w, two.id, 'w=64&format=avif');
    const rows = await rowsOf(w, one.sha256);
    expect(rows.map((r) => r.params)).toEqual(['v1-w32-q80.jpeg', 'v1-w64-q80.avif']);
    expectNoContent(await w.t.call('DELETE', filesPath(w, one.id), { token: w.writeKey }));
    expect(await rowsOf(w, one.sha256)).toHaveLength(2);
    expectNoContent(await w.t.call('DELETE', filesPath(w, two.id), { token: w.writeKey }));
    expect(await rowsOf(w, one.sha256)).toEqual([]);
    for (const row of rows) expect(await storedBytes(w, row.storage_key)).toBeNull();
    expect(await blobCount(w)).toBe(await expectedBlobs(w));
  });

  it('the start-up sweep removes derived images whose bytes no file holds', async () => {
    const file = await uploadImage(w, await picture(200, 100), 'image/jpeg');
    await transformed(w, file.id, 'w=20');
    const [row] = await rowsOf(w, file.sha256);
    // As if a process had stopped between the delete and its clean-up.
    await w.t.api.deps.pool.query('delete from file where id = $1', [file.id]);
    const removed = await sweepUnusedDerivatives(w.t.api.deps.orm.em.fork(), w.t.api.deps.storage, w.t.api.deps.logger);
    expect(removed).toBe(1);
    expect(await rowsOf(w, file.sha256)).toEqual([]);
    expect(await storedBytes(w, row.storage_key)).toBeNull();
  });
});

describe.each(DRIVERS)('purging a deleted project on the %s driver', (driver) => {
  it('removes its derived images with its files: rows and stored bytes', async () => {
    const w = await startFilesWorld(driver);
    try {
      const file = await uploadImage(w, await picture(200, 150), 'image/jpeg');
      await transformed(w, file.id, 'w=50');
      await transformed(w, file.id, 'w=60&format=webp');
      expect(await rowsOf(w)).toHaveLength(2);
      expectNoContent(await w.t.call('DELETE', `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}`));
      const purge = createPurgeHandler(w.t.api.deps.orm, createLogger('silent'), w.t.api.deps.storage);
      await purge([{ id: 'test', name: 'purge', data: { kind: 'project', id: w.projectId } } as Job<PurgeJob>]);
      expect(await rowsOf(w)).toEqual([]);
      expect(await blobCount(w)).toBe(0);
    } finally {
      await w.close();
    }
  });
});

/** Stored blobs: files under STORAGE_DIR, committed and staged postgres blobs, or objects in the bucket (staging included). */
async function blobCount(w: FilesWorld): Promise<number> {
  if (w.s3) return (await w.s3.keys()).length;
  if (w.driver === 'postgres') return Number((await w.t.api.deps.pool.query<{ n: string }>('select count(*) as n from file_blob')).rows[0].n);
  const walk = async (dir: string): Promise<number> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    let n = 0;
    for (const e of entries) n += e.isDirectory() ? await walk(path.join(dir, e.name)) : 1;
    return n;
  };
  return walk(w.dir);
}

/** One blob per file row and per derived image row, nothing else. */
async function expectedBlobs(w: FilesWorld): Promise<number> {
  const { rows } = await w.t.api.deps.pool.query<{ n: string }>('select (select count(*) from file) + (select count(*) from file_derivative) as n');
  return Number(rows[0].n);
}
