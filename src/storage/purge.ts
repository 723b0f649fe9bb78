import { LocalBlobStore } from './local.js';

/** Blobs per statement: each one may hold many megabytes of chunks. */
const BLOB_BATCH = 20;

/**
 * Removes every stored byte of a purged project, whichever driver wrote it: its postgres blobs
 * (chunks cascade), in small batches, and its directory under STORAGE_DIR. The `file` rows go
 * with the project row (foreign key cascade). Idempotent.
 */
export async function purgeProjectFiles(
  execute: (sql: string, params: unknown[]) => Promise<unknown[]>,
  projectId: string,
  storageDir: string,
): Promise<void> {
  for (;;) {
    const deleted = await execute(
      'delete from file_blob where id in (select id from file_blob where project_id = ? limit ?) returning id',
      [projectId, BLOB_BATCH],
    );
    if (deleted.length < BLOB_BATCH) break;
  }
  await new LocalBlobStore(storageDir).removeProject(projectId);
}
