import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Config } from '../config/config.js';
import { LocalBlobStore } from './local.js';
import { PostgresBlobStore } from './postgres.js';

export const STORAGE_DRIVERS = ['local', 'postgres'] as const;
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
 * the postgres driver) and `remove`d after it commits (the local driver unlinks them then).
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

export interface Storage {
  /** The driver new uploads go to (STORAGE_DRIVER). */
  readonly current: BlobStore;
  /** The driver that wrote a stored file (the setting may have changed since). */
  of(driver: StorageDriver): BlobStore;
  /** Sweeps staged blobs left behind by crashed processes, in every driver. */
  sweep(): Promise<number>;
}

/**
 * Staged blobs older than this are leftovers: the server's request timeout (60 s) ends every
 * upload long before.
 */
export const STAGED_MAX_AGE_MS = 60 * 60 * 1000;

export function createStorage(config: Pick<Config, 'STORAGE_DRIVER' | 'STORAGE_DIR'>, pool: pg.Pool): Storage {
  const drivers: Record<StorageDriver, BlobStore> = {
    local: new LocalBlobStore(config.STORAGE_DIR),
    postgres: new PostgresBlobStore(pool),
  };
  return {
    current: drivers[config.STORAGE_DRIVER],
    of: (driver) => drivers[driver],
    sweep: async () => {
      const counts = await Promise.all(Object.values(drivers).map((d) => d.sweep(STAGED_MAX_AGE_MS)));
      return counts.reduce((a, b) => a + b, 0);
    },
  };
}
