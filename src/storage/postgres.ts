import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { runSql, sqlOn } from '../db/sql.js';
import { uuidv7 } from '../shared/ids.js';
import type { BlobStore, ByteRange } from './blob-store.js';
import { chunkSlice, commitBlob, committedBlob, deleteBlob, insertChunk, stageBlob, staleStagedBlobs } from './postgres.sql.js';

/**
 * Every chunk but the last holds exactly this many bytes, so that a byte offset names its chunk.
 * 1 MiB: a 50 MiB upload is 50 short inserts, and an upload holds at most one chunk in memory.
 */
export const CHUNK_BYTES = 1024 * 1024;

/** Inserts full chunks of a blob as the bytes stream in (each one a short autocommit statement). */
class ChunkWriter extends Writable {
  private parts: Buffer[] = [];
  private buffered = 0;
  private seq = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly blobId: string,
  ) {
    super();
  }

  private async insert(data: Buffer): Promise<void> {
    await sqlOn(this.pool)(insertChunk(this.blobId, this.seq++, data));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.parts.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < CHUNK_BYTES) return callback();
    void (async () => {
      let all = Buffer.concat(this.parts, this.buffered);
      while (all.length >= CHUNK_BYTES) {
        await this.insert(all.subarray(0, CHUNK_BYTES));
        all = all.subarray(CHUNK_BYTES);
      }
      this.parts = all.length > 0 ? [all] : [];
      this.buffered = all.length;
    })().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.buffered === 0) return callback();
    this.insert(Buffer.concat(this.parts, this.buffered)).then(() => callback(), callback);
  }
}

/**
 * STORAGE_DRIVER=postgres: bytes in `file_chunk` rows under a `file_blob`, so that several API
 * replicas share files through the database alone. A blob is staged (`committed = false`) while
 * it streams in; the transaction that writes its file row commits it.
 */
export class PostgresBlobStore implements BlobStore {
  readonly driver = 'postgres' as const;

  constructor(private readonly pool: pg.Pool) {}

  async stage(projectId: string, source: Readable): Promise<string> {
    const key = uuidv7();
    await sqlOn(this.pool)(stageBlob(key, projectId));
    try {
      await pipeline(source, new ChunkWriter(this.pool, key));
    } catch (error) {
      // If even this fails (database gone), the staged blob is swept later.
      await this.remove(projectId, key).catch(() => {});
      throw error;
    }
    return key;
  }

  async commit(tx: EntityManager, _projectId: string, key: string): Promise<void> {
    const rows = await runSql(tx, commitBlob(key));
    if (rows.length !== 1) throw new Error(`staged blob ${key} is gone`);
  }

  async drop(tx: EntityManager, _projectId: string, key: string): Promise<void> {
    await runSql(tx, deleteBlob(key));
  }

  async remove(_projectId: string, key: string): Promise<void> {
    await sqlOn(this.pool)(deleteBlob(key));
  }

  async open(_projectId: string, key: string, size: number, range?: ByteRange): Promise<Readable> {
    const found = await sqlOn(this.pool)(committedBlob(key));
    if (found.length !== 1) throw new Error(`blob ${key} is missing`);
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const sql = sqlOn(this.pool);
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let seq = Math.floor(start / CHUNK_BYTES); size > 0 && seq <= Math.floor(end / CHUNK_BYTES); seq++) {
        const from = Math.max(start - seq * CHUNK_BYTES, 0);
        const to = Math.min(end - seq * CHUNK_BYTES, CHUNK_BYTES - 1);
        // With uncompressed storage substring() reads only the slice asked for.
        const rows = await sql<{ data: Buffer }>(chunkSlice(key, seq, from, to));
        if (rows.length !== 1) throw new Error(`chunk ${seq} of blob ${key} is missing`);
        yield rows[0].data;
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  async sweep(olderThanMs: number): Promise<number> {
    return (await sqlOn(this.pool)(staleStagedBlobs(olderThanMs))).length;
  }
}
