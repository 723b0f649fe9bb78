import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request, type ClientRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { startTestApi, toCallResult, type CallResult } from '../helpers/api.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { buildWorld, type World } from '../contents/fixture.js';

/** Shared helpers of the test/resources suite (categories, variables, translations, files). */

export const DRIVERS = ['local', 'postgres', 's3'] as const;
export type Driver = (typeof DRIVERS)[number];

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

export interface FilesWorld extends World {
  driver: Driver;
  /** STORAGE_DIR of this API (a fresh temporary directory). */
  dir: string;
  /** The S3 server and bucket of the s3 driver (null for the others). */
  s3: S3TestServer | null;
  close(): Promise<void>;
}

/**
 * An API with the given driver, a fresh STORAGE_DIR (and for s3 a fresh S3 server and bucket),
 * and a project (locales en, fr) with keys.
 */
export async function startFilesWorld(driver: Driver, env: Record<string, string> = {}): Promise<FilesWorld> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-files-'));
  const s3 = driver === 's3' ? await startS3Server() : null;
  const t = await startTestApi({ STORAGE_DRIVER: driver, STORAGE_DIR: dir, ...s3?.env, ...env });
  const w = await buildWorld(t);
  return {
    ...w,
    driver,
    dir,
    s3,
    close: async () => {
      await t.close();
      await s3?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const filesPath = (w: World, fileId?: string) => `/v1/${w.projectId}/files${fileId ? `/${fileId}` : ''}`;

export interface Part {
  bytes: Buffer | string;
  filename?: string;
  type?: string;
}

/** A multipart request through fetch/FormData: a `file` part (unless null) and optional `name`. */
export async function sendForm(
  w: World,
  method: 'POST' | 'PUT',
  urlPath: string,
  file: Part | null,
  options: { token?: string | null; name?: string; extra?: Record<string, string | Part> } = {},
): Promise<CallResult> {
  const form = new FormData();
  const add = (field: string, part: Part) =>
    form.append(field, new Blob([part.bytes], part.type === undefined ? {} : { type: part.type }), part.filename ?? 'upload.bin');
  if (file) add('file', file);
  if (options.name !== undefined) form.append('name', options.name);
  for (const [field, value] of Object.entries(options.extra ?? {})) {
    if (typeof value === 'string') form.append(field, value);
    else add(field, value);
  }
  const token = options.token === undefined ? w.writeKey : options.token;
  return toCallResult(await fetch(w.t.url + urlPath, { method, body: form, headers: token ? { authorization: `Bearer ${token}` } : {} }));
}

export const upload = (w: World, file: Part | null, options: Parameters<typeof sendForm>[4] = {}) =>
  sendForm(w, 'POST', filesPath(w), file, options);

/** GET the bytes of a file (optionally with headers such as Range). */
export async function download(w: World, fileId: string, headers: Record<string, string> = {}, token = w.readKey) {
  const res = await fetch(`${w.t.url}${filesPath(w, fileId)}/content`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

/** Deterministic pseudo-random bytes (incompressible, like most uploads). */
export function bytesOf(length: number, seed = 1): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** What is stored: file rows, blobs and chunks, files on disk and objects in the bucket (staging included). */
export async function storedState(w: FilesWorld) {
  const pool = w.t.api.deps.pool;
  const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0].n);
  const walk = async (dir: string): Promise<string[]> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)])));
    return nested.flat();
  };
  return {
    rows: await count('select count(*) as n from file'),
    blobs: await count('select count(*) as n from file_blob'),
    chunks: await count('select count(*) as n from file_chunk'),
    disk: (await walk(w.dir)).length,
    objects: w.s3 ? (await w.s3.keys()).length : 0,
  };
}

export interface RawUploadResult {
  status: number | null;
  body: string;
  error: string | null;
}

/**
 * A multipart upload through node:http with a hand-made body streamed from `source`: chunked
 * (no Content-Length) unless `contentLength` is given. `abortAfter`: once that many file bytes
 * are written, waits for `abortWhen` (e.g. "the server has stored some of them"; a function is
 * called only then) and destroys the socket mid-body.
 */
export function rawUpload(
  w: World,
  source: AsyncIterable<Buffer>,
  options: { abortAfter?: number; abortWhen?: Promise<unknown> | (() => Promise<unknown>); contentLength?: number; token?: string } = {},
): Promise<RawUploadResult> {
  const boundary = `----tabula${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(w.t.url + filesPath(w));
  return new Promise((resolve) => {
    let written = 0;
    let settled = false;
    const done = (result: RawUploadResult) => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.token ?? w.writeKey}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          ...(options.contentLength === undefined ? {} : { 'content-length': String(options.contentLength + head.length + tail.length) }),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => done({ status: res.statusCode ?? null, body, error: null }));
        res.on('error', (e) => done({ status: res.statusCode ?? null, body, error: e.message }));
      },
    );
    req.on('error', (e) => done({ status: null, body: '', error: e.message }));
    void (async () => {
      req.write(head);
      for await (const chunk of source) {
        if (settled || req.destroyed) return;
        if (!req.write(chunk)) await drainOrClose(req);
        written += chunk.length;
        if (options.abortAfter !== undefined && written >= options.abortAfter) {
          await (typeof options.abortWhen === 'function' ? options.abortWhen() : options.abortWhen);
          req.destroy();
          done({ status: null, body: '', error: 'aborted by the test' });
          return;
        }
      }
      req.end(tail);
    })();
  });
}

const drainOrClose = (req: ClientRequest) =>
  new Promise<void>((resolve) => {
    if (req.destroyed) return resolve();
    const go = () => {
      req.off('drain', go).off('close', go);
      resolve();
    };
    req.on('drain', go).on('close', go);
  });

/** `total` bytes in 64 KiB chunks, generated as they are read. */
export async function* generated(total: number, chunk = 64 * 1024): AsyncGenerator<Buffer> {
  const block = bytesOf(chunk, 7);
  for (let sent = 0; sent < total; sent += chunk) yield sent + chunk <= total ? block : block.subarray(0, total - sent);
}

export function expectFileShape(file: Record<string, unknown>) {
  expect(Object.keys(file).sort()).toEqual(['createdAt', 'id', 'mimeType', 'name', 'sha256', 'size', 'updatedAt', 'url']);
  expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
}
