import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';

/* The driver interface, apart from storage.ts (which picks a driver), so that the drivers do not import their factory. */

export const STORAGE_DRIVERS = ['local', 'postgres', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

/** Bytes `start..end` of a blob, both inclusive (as in `Content-Range`). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where file bytes live. A write is two-phase so that bytes and the metadata row appear
 * together or not at all:
 *
 * 1. `stage` streams the upload into a blob nobody can see yet; any failure (client abort,
 *    size limit) removes what was written before it rejects.
 * 2. `commit` runs inside the transaction that writes the file row, as its last step. If that
 *    transaction fails, the caller `remove`s the blob.
 *
 * Replaced or deleted bytes are `drop`ped in the transaction that changes the row (atomic for
 * the postgres driver) and `remove`d after it commits (the local and s3 drivers delete them then).
 * Staged blobs that outlive their request because a process died are `sweep`ed.
 */
export interface BlobStore {
  readonly driver: StorageDriver;
  /** Streams `source` into a new staged blob of the project and returns its key. */
  stage(projectId: string, source: Readable): Promise<string>;
  /** Makes a staged blob permanent, as the last step of the metadata transaction `tx`. */
  commit(tx: EntityManager, projectId: string, key: string): Promise<void>;
  /** Forgets a committed blob inside the metadata transaction `tx` (before `remove`). */
  drop(tx: EntityManager, projectId: string, key: string): Promise<void>;
  /** Deletes a blob's bytes, staged or committed; a missing blob is fine. */
  remove(projectId: string, key: string): Promise<void>;
  /** The bytes of a committed blob of `size` bytes, or of `range` of it. Rejects when missing. */
  open(projectId: string, key: string, size: number, range?: ByteRange): Promise<Readable>;
  /** Deletes staged blobs older than `olderThanMs`; returns how many. */
  sweep(olderThanMs: number): Promise<number>;
}
