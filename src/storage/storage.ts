import type pg from 'pg';
import type { Config } from '../config/config.js';
import type { BlobStore, StorageDriver } from './blob-store.js';
import { LocalBlobStore } from './local.js';
import { PostgresBlobStore } from './postgres.js';
import { createS3Client, S3BlobStore } from './s3.js';

export { STORAGE_DRIVERS, type BlobStore, type ByteRange, type StorageDriver } from './blob-store.js';

export interface Storage {
  /** The driver new uploads go to (STORAGE_DRIVER). */
  readonly current: BlobStore;
  /** The driver that wrote a stored file (the setting may have changed since). */
  of(driver: StorageDriver): BlobStore;
  /** Sweeps staged blobs left behind by crashed processes, in every driver. */
  sweep(): Promise<number>;
  /**
   * Removes a purged project's bytes that live outside the database: its local directory and
   * its objects in the bucket (its postgres-stored bytes go with its rows).
   */
  removeProject(projectId: string): Promise<void>;
}

export type StorageConfig = Pick<
  Config,
  | 'STORAGE_DRIVER'
  | 'STORAGE_DIR'
  | 'FILES_MAX_BYTES'
  | 'STAGED_UPLOADS_MAX_AGE_MS'
  | 'S3_BUCKET'
  | 'S3_REGION'
  | 'S3_ENDPOINT'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
>;

/**
 * Every driver this process can reach: local and postgres always, s3 when S3_BUCKET is set
 * (whatever STORAGE_DRIVER says, so that files uploaded to the bucket stay readable after the
 * setting changes). Called once per process: the S3 client holds its connection pool.
 */
export function createStorage(config: StorageConfig, pool: pg.Pool): Storage {
  const local = new LocalBlobStore(config.STORAGE_DIR);
  const s3 = config.S3_BUCKET
    ? new S3BlobStore(
        createS3Client({
          bucket: config.S3_BUCKET,
          region: config.S3_REGION,
          endpoint: config.S3_ENDPOINT,
          accessKeyId: config.S3_ACCESS_KEY_ID,
          secretAccessKey: config.S3_SECRET_ACCESS_KEY,
          forcePathStyle: config.S3_FORCE_PATH_STYLE,
        }),
        config.S3_BUCKET,
        config.FILES_MAX_BYTES,
      )
    : null;
  const drivers: Partial<Record<StorageDriver, BlobStore>> = { local, postgres: new PostgresBlobStore(pool), ...(s3 ? { s3 } : {}) };
  const of = (driver: StorageDriver): BlobStore => {
    const store = drivers[driver];
    // Only s3 can be missing: a file uploaded to a bucket before the S3_ settings were removed.
    if (!store) throw new Error(`a file is stored by the ${driver} driver, which is not configured (S3_BUCKET is not set)`);
    return store;
  };
  return {
    current: of(config.STORAGE_DRIVER),
    of,
    sweep: async () => {
      const counts = await Promise.all(Object.values(drivers).map((d) => d.sweep(config.STAGED_UPLOADS_MAX_AGE_MS)));
      return counts.reduce((a, b) => a + b, 0);
    },
    removeProject: async (projectId) => {
      await local.removeProject(projectId);
      await s3?.removeProject(projectId);
    },
  };
}
