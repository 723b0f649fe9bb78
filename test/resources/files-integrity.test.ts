import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Job } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, expectConflict, expectCreated, expectError, expectNoContent, expectValidation, GHOST, postRow, putRow } from '../contents/fixture.js';
import type { PurgeJob } from '../../src/jobs/queues.js';
import { createLogger } from '../../src/shared/logger.js';
import { createPurgeHandler } from '../../workers/handlers/purge.js';
import { bytesOf, DRIVERS, download, filesPath, generated, rawUpload, sha256, startFilesWorld, storedState, upload, type FilesWorld } from './fixture.js';
import { until } from '../helpers/until.js';

/**
 * What must never be left behind or broken, on every storage driver: aborted and oversized
 * uploads (no rows, no bytes), file references from contents (422/409), and purged projects.
 */

const MiB = 1024 * 1024;

describe.each(DRIVERS)('file integrity on the %s driver', (driver) => {
  let w: FilesWorld;

  beforeAll(async () => {
    w = await startFilesWorld(driver);
  });
  afterAll(async () => w?.close());

  const settlesBackTo = async (before: Awaited<ReturnType<typeof storedState>>) =>
    until(async () => {
      const now = await storedState(w);
      return JSON.stringify(now) === JSON.stringify(before) ? now : false;
    }, 10_000);

  /** Resolves once the server has stored some bytes of an upload in progress (a staged blob). */
  const stagingStarted = (before: Awaited<ReturnType<typeof storedState>>) =>
    until(async () => {
      const now = await storedState(w);
      const started = { local: now.disk > before.disk, postgres: now.chunks > before.chunks, s3: now.objects > before.objects };
      return started[driver] || false;
    }, 10_000);

  describe('uploads that fail half-way leave nothing', () => {
    it('a client that drops the connection mid-body: no row, no blob, no bytes on disk', async () => {
      const before = await storedState(w);
      const result = await rawUpload(w, generated(12 * MiB), { abortAfter: 3 * MiB, abortWhen: stagingStarted(before) });
      expect(result.status).toBeNull();
      await settlesBackTo(before);
      expect((await w.t.call('GET', filesPath(w))).json.pagination.total).toBe(before.rows);
    });

    it('the same with a declared Content-Length', async () => {
      const before = await storedState(w);
      await rawUpload(w, generated(8 * MiB), { abortAfter: 2 * MiB, abortWhen: stagingStarted(before), contentLength: 8 * MiB });
      await settlesBackTo(before);
    });

    it('60 MiB with the default 50 MiB limit, streamed without a length: 413 while streaming, nothing left', async () => {
      const before = await storedState(w);
      const result = await rawUpload(w, generated(60 * MiB));
      expect(result.status, result.body || result.error || '').toBe(413);
      const body = JSON.parse(result.body);
      expect(body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('FILES_MAX_BYTES'), details: null } });
      await settlesBackTo(before);
    });

    it('60 MiB with a declared Content-Length: 413 before a byte is stored', async () => {
      const before = await storedState(w);
      const result = await rawUpload(w, generated(60 * MiB), { contentLength: 60 * MiB });
      expect(result.status).toBe(413);
      expect(await storedState(w)).toEqual(before);
    });

    it('exactly FILES_MAX_BYTES is accepted (limit 1 MiB), one byte more is 413', async () => {
      const small = await startFilesWorld(driver, { FILES_MAX_BYTES: String(MiB) });
      try {
        const ok = await upload(small, { bytes: bytesOf(MiB, 8) });
        expect(ok.status, ok.text).toBe(201);
        const before = await storedState(small);
        const tooBig = await upload(small, { bytes: bytesOf(MiB + 1, 8) });
        expectError(tooBig, 413, 'PAYLOAD_TOO_LARGE');
        await until(async () => JSON.stringify(await storedState(small)) === JSON.stringify(before) || false, 10_000);
      } finally {
        await small.close();
      }
    });

    it('a 20 MiB upload streams in and downloads byte-identical with the same SHA-256', async () => {
      const result = await rawUpload(w, generated(20 * MiB));
      expect(result.status, result.body).toBe(201);
      const file = JSON.parse(result.body);
      const parts: Buffer[] = [];
      for await (const part of generated(20 * MiB)) parts.push(part);
      const expected = Buffer.concat(parts);
      expect(file).toMatchObject({ size: 20 * MiB, sha256: sha256(expected), name: 'big.bin', mimeType: 'application/octet-stream' });
      const res = await download(w, file.id);
      expect(res.body.length).toBe(20 * MiB);
      expect(sha256(res.body)).toBe(file.sha256);
      expectNoContent(await w.t.call('DELETE', filesPath(w, file.id)));
    });
  });

  describe('file columns in contents', () => {
    it('unknown file ids are 422 data.<column>; known ones are stored; referenced files cannot be deleted (409 with the count)', async () => {
      const table = await createTable(w, [
        { name: 'title', type: 'text' },
        { name: 'cover', type: 'file' },
        { name: 'gallery', type: 'file', settings: { multiple: true } },
      ]);
      const a = (await upload(w, { bytes: 'a' })).json;
      const b = (await upload(w, { bytes: 'b' })).json;
      const unused = (await upload(w, { bytes: 'c' })).json;
      expectValidation(await postRow(w, table.id, { data: { cover: GHOST } }), ['data.cover']);
      expectValidation(await postRow(w, table.id, { data: { cover: a.id, gallery: [b.id, GHOST] } }), ['data.gallery']);
      // A file of another project is as unknown as a missing one.
      const pr = await w.t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Elsewhere' } });
      const foreign = (await upload({ ...w, projectId: pr.json.id, writeKey: w.t.adminToken }, { bytes: 'f' })).json;
      expectValidation(await postRow(w, table.id, { data: { cover: foreign.id } }), ['data.cover']);

      const row1 = expectCreated(await postRow(w, table.id, { data: { title: 'one', cover: a.id, gallery: [b.id] } }));
      expectCreated(await postRow(w, table.id, { data: { title: 'two', gallery: [a.id, b.id] } }));
      expectValidation(await putRow(w, table.id, row1.id, { data: { cover: GHOST } }), ['data.cover']);

      expectConflict(await w.t.call('DELETE', filesPath(w, a.id)), '2 contents rows');
      expectConflict(await w.t.call('DELETE', filesPath(w, b.id)), '2 contents rows');
      expect((await download(w, a.id)).body.toString()).toBe('a');
      expectNoContent(await w.t.call('DELETE', filesPath(w, unused.id)));

      expect((await putRow(w, table.id, row1.id, { data: { cover: null } })).status).toBe(200);
      expectConflict(await w.t.call('DELETE', filesPath(w, a.id)), '1 contents row');
      // Rows of a deleted table no longer count.
      expectNoContent(await w.t.call('DELETE', `/v1/${w.projectId}/tables/${table.id}`));
      expectNoContent(await w.t.call('DELETE', filesPath(w, a.id)));
    });
  });

  describe('purge', () => {
    it('purging a deleted project removes its file rows and every stored byte', async () => {
      const pr = await w.t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Doomed' } });
      const doomed = { ...w, projectId: pr.json.id, writeKey: w.t.adminToken };
      for (let i = 0; i < 3; i++) expect((await upload(doomed, { bytes: bytesOf(1.5 * MiB, i + 1) })).status).toBe(201);
      const pool = w.t.api.deps.pool;
      const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql, [pr.json.id])).rows[0].n);
      expect(await count('select count(*) as n from file where project_id = $1')).toBe(3);
      if (driver === 'local') expect((await stat(path.join(w.dir, pr.json.id))).isDirectory()).toBe(true);
      else if (driver === 's3') expect(await w.s3!.keys(`projects/${pr.json.id}/`)).toHaveLength(3);
      else expect(await count('select count(*) as n from file_blob where project_id = $1')).toBe(3);

      expectNoContent(await w.t.call('DELETE', `/v1/workspaces/${w.workspaceId}/projects/${pr.json.id}`));
      const purge = createPurgeHandler(w.t.api.deps.orm, createLogger('silent'), w.t.api.deps.storage);
      const job = { id: 'test', name: 'purge', data: { kind: 'project', id: pr.json.id } } as Job<PurgeJob>;
      await purge([job]);

      expect(await count('select count(*) as n from file where project_id = $1')).toBe(0);
      expect(await count('select count(*) as n from file_blob where project_id = $1')).toBe(0);
      await expect(stat(path.join(w.dir, pr.json.id))).rejects.toThrow();
      if (w.s3) expect(await w.s3.keys(`projects/${pr.json.id}/`)).toEqual([]);
      // The project of this suite is untouched.
      expect((await w.t.call('GET', filesPath(w))).status).toBe(200);
    });
  });
});
