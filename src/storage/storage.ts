import type pg from 'pg';
import type { Config } from '../config/config.js';
import type { BlobStore, StorageDriver } from './blob-store.js';
import { LocalBlobStore } from './local.js';
import { PostgresBlobStore } from './postgres.js';

export { STORAGE_DRIVERS, type BlobStore, type ByteRange, type StorageDriver } from './blob-store.js';

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
