import type { SqlQuery } from '../db/sql.js';

/** A blob staged for a project: not `committed` until the file row's transaction says so. */
export const stageBlob = (blobId: string, projectId: string): SqlQuery => ({
  text: 'insert into file_blob (id, project_id) values ($1, $2)',
  values: [blobId, projectId],
});

export const insertChunk = (blobId: string, seq: number, data: Buffer): SqlQuery => ({
  text: 'insert into file_chunk (blob_id, seq, data) values ($1, $2, $3)',
  values: [blobId, seq, data],
});

/** Returns the blob's id if it is still there to commit. */
export const commitBlob = (blobId: string): SqlQuery => ({
  text: 'update file_blob set committed = true where id = $1 returning id',
  values: [blobId],
});

/** Removes a blob; its chunks cascade. */
export const deleteBlob = (blobId: string): SqlQuery => ({
  text: 'delete from file_blob where id = $1',
  values: [blobId],
});

export const committedBlob = (blobId: string): SqlQuery => ({
  text: 'select 1 from file_blob where id = $1 and committed',
  values: [blobId],
});

/** Bytes [from, to] (0-based, inclusive) of one chunk; substring() is 1-based. */
export const chunkSlice = (blobId: string, seq: number, from: number, to: number): SqlQuery => ({
  text: 'select substring(data from $3 for $4) as data from file_chunk where blob_id = $1 and seq = $2',
  values: [blobId, seq, from + 1, to - from + 1],
});

/** Staged blobs older than `olderThanMs` whose file row never committed; one row per blob removed. */
export const staleStagedBlobs = (olderThanMs: number): SqlQuery => ({
  text: `delete from file_blob where not committed and created_at < now() - make_interval(secs => $1) returning 1`,
  values: [olderThanMs / 1000],
});
