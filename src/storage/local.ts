import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isUuid, uuidv7 } from '../shared/ids.js';
import type { BlobStore, ByteRange } from './blob-store.js';

/** Uploads in progress; never read from. Its name cannot clash with a project id. */
const STAGING = '.staging';

/**
 * STORAGE_DIR layout: `<dir>/<projectId>/<key>` for committed bytes, `<dir>/.staging/<key>`
 * while an upload streams in. A commit is a rename within one file system (atomic); purging a
 * project removes its directory.
 */
export class LocalBlobStore implements BlobStore {
  readonly driver = 'local' as const;
  private readonly root: string;

  constructor(dir: string) {
    this.root = path.resolve(dir);
  }

  /** Keys and project ids are UUIDs we generated; anything else must never become a path. */
  private pathOf(folder: string, key: string): string {
    if (!isUuid(key) || (folder !== STAGING && !isUuid(folder))) throw new Error(`invalid storage path ${folder}/${key}`);
    return path.join(this.root, folder, key);
  }

  async stage(_projectId: string, source: Readable): Promise<string> {
    const key = uuidv7();
    const staged = this.pathOf(STAGING, key);
    await mkdir(path.dirname(staged), { recursive: true });
    try {
      // `flush`: the bytes are on disk before the metadata row that points at them commits.
      await pipeline(source, createWriteStream(staged, { flags: 'wx', flush: true }));
    } catch (error) {
      await rm(staged, { force: true });
      throw error;
    }
    return key;
  }

  async commit(_tx: unknown, projectId: string, key: string): Promise<void> {
    const target = this.pathOf(projectId, key);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(this.pathOf(STAGING, key), target);
  }

  async drop(): Promise<void> {
    // Nothing in the database: `remove` unlinks the file once the transaction has committed.
  }

  async remove(projectId: string, key: string): Promise<void> {
    await rm(this.pathOf(STAGING, key), { force: true });
    await rm(this.pathOf(projectId, key), { force: true });
  }

  async open(projectId: string, key: string, _size: number, range?: ByteRange): Promise<Readable> {
    // Opened before the response starts: a missing file is a 500, not a truncated body.
    const handle = await open(this.pathOf(projectId, key), 'r');
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async sweep(olderThanMs: number): Promise<number> {
    const dir = path.join(this.root, STAGING);
    const names = await readdir(dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const file = path.join(dir, name);
      const info = await stat(file).catch(() => null);
      if (info && Date.now() - info.mtimeMs > olderThanMs) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Removes every committed byte of a project (purge). */
  async removeProject(projectId: string): Promise<void> {
    if (!isUuid(projectId)) throw new Error(`invalid project id ${projectId}`);
    await rm(path.join(this.root, projectId), { recursive: true, force: true });
  }
}
