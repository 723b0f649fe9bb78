import type { Job } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PurgeJob } from '../../src/jobs/queues.js';
import { createLogger } from '../../src/shared/logger.js';
import { createPurgeHandler } from '../../workers/handlers/purge.js';
import { expectCreated, expectNoContent, type World } from '../contents/fixture.js';
import { bytesOf, download, sha256, startFilesWorld, storedState, upload, type FilesWorld } from '../resources/fixture.js';

/**
 * Copies share their files' stored bytes (docs/concepts.md#copying-a-project): the bytes stay
 * while any file of any project holds them, through deletes, replaces and purges of projects,
 * and go with the last holder. On every storage driver.
 */
describe.each(['local', 'postgres', 's3'] as const)('shared bytes on the %s driver', (driver) => {
  let w: FilesWorld;
  beforeAll(async () => {
    w = await startFilesWorld(driver);
  });
  afterAll(() => w?.close());

  /** A project in the suite's workspace, as a World the file helpers take (the account token writes). */
  const project = async (body: Record<string, unknown>): Promise<World> => {
    const made = expectCreated(await w.t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'P', ...body } }));
    return { ...w, projectId: made.id, writeKey: w.t.adminToken, readKey: w.t.adminToken };
  };
  const copyOf = (p: World) => project({ name: 'Copy', from: { projectId: p.projectId, contents: true } });
  const filesOf = async (p: World) => (await w.t.call('GET', `/v1/${p.projectId}/files`)).json.list as { id: string; sha256: string }[];
  const purge = async (p: World) => {
    expectNoContent(await w.t.call('DELETE', `/v1/workspaces/${w.workspaceId}/projects/${p.projectId}`));
    const job = { id: 'test', name: 'purge', data: { kind: 'project', id: p.projectId } } as Job<PurgeJob>;
    await createPurgeHandler(w.t.api.deps.orm, createLogger('silent'), w.t.api.deps.storage)([job]);
  };
  const stored = async () => {
    const s = await storedState(w);
    return { local: s.disk, postgres: s.blobs, s3: s.objects }[driver];
  };

  it('a purged source leaves the bytes its copies hold; a copy of a copy too; the last holder takes them along', async () => {
    const base = await stored();
    const source = await project({});
    const bytes = bytesOf(300_000, 7);
    expectCreated(await upload(source, { bytes, filename: 'a.bin' }));
    expectCreated(await upload(source, { bytes: bytesOf(1000, 8), filename: 'own.bin' }));
    const copy = await copyOf(source);
    const copyOfCopy = await copyOf(copy);
    expect(await stored()).toBe(base + 2);

    await purge(source);
    // Both files were copied: the copies hold all the bytes, which stay.
    expect(await stored()).toBe(base + 2);
    for (const p of [copy, copyOfCopy]) {
      const file = (await filesOf(p)).find((f) => f.sha256 === sha256(bytes))!;
      const got = await download(p, file.id);
      expect(got.status).toBe(200);
      expect(got.body.equals(bytes)).toBe(true);
    }

    // The copy lets go of one file: the copy of the copy still holds it.
    const [first] = await filesOf(copy);
    expectNoContent(await w.t.call('DELETE', `/v1/${copy.projectId}/files/${first.id}`));
    expect(await stored()).toBe(base + 2);
    await purge(copy);
    expect(await stored()).toBe(base + 2);
    expect((await download(copyOfCopy, (await filesOf(copyOfCopy))[0].id)).status).toBe(200);

    await purge(copyOfCopy);
    expect(await stored()).toBe(base);
  });

  it('two projects deleting their file of the same bytes at once: both 204, the bytes gone', async () => {
    const base = await stored();
    for (let i = 0; i < 5; i++) {
      const source = await project({});
      const [file] = [expectCreated(await upload(source, { bytes: bytesOf(5000, 20 + i) }))];
      const copy = await copyOf(source);
      const [copied] = await filesOf(copy);
      const answers = await Promise.all([
        w.t.call('DELETE', `/v1/${source.projectId}/files/${file.id}`),
        w.t.call('DELETE', `/v1/${copy.projectId}/files/${copied.id}`),
      ]);
      expect(answers.map((a) => a.status)).toEqual([204, 204]);
      expect(await stored()).toBe(base);
    }
  });

  it('replacing the file in the copy leaves the source its bytes', async () => {
    const source = await project({});
    const bytes = bytesOf(4000, 40);
    const file = expectCreated(await upload(source, { bytes }));
    const copy = await copyOf(source);
    const [copied] = await filesOf(copy);
    const form = new FormData();
    form.append('file', new Blob([bytesOf(4000, 41)]), 'new.bin');
    const replaced = await fetch(`${w.t.url}/v1/${copy.projectId}/files/${copied.id}`, { method: 'PUT', body: form, headers: { authorization: `Bearer ${w.t.adminToken}` } });
    expect(replaced.status).toBe(200);
    const got = await download(source, file.id);
    expect(got.body.equals(bytes)).toBe(true);
    expect((await download(copy, copied.id)).body.equals(bytesOf(4000, 41))).toBe(true);
  });
});
