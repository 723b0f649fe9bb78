import type { SqlQuery } from '../../db/sql.js';

/** Where a derived image is stored, as `file_derivative` holds it. */
export interface DerivativeRow {
  id: string;
  mime_type: string;
  size: string;
  storage_driver: string;
  storage_key: string;
}

/** The derived image `params` of the original `sha256` in a project (every request but the first). */
export const findDerivative = (projectId: string, sha256: string, params: string): SqlQuery => ({
  name: 'image-derivative-find',
  text: `select id, mime_type, size, storage_driver, storage_key from file_derivative
          where project_id = $1 and sha256 = $2 and params = $3`,
  values: [projectId, sha256, params],
});

/**
 * One row while the file still holds the bytes `sha256`, locked against a concurrent replace
 * or delete until the recording transaction ends: a derivative is never recorded for bytes that
 * a committed replace or delete has already let go (their clean-up would then miss it).
 */
export const lockSource = (projectId: string, fileId: string, sha256: string): SqlQuery => ({
  text: 'select 1 from file where id = $1 and project_id = $2 and sha256 = $3 for share',
  values: [fileId, projectId, sha256],
});

export interface NewDerivative {
  id: string;
  projectId: string;
  sha256: string;
  params: string;
  mimeType: string;
  size: number;
  storageDriver: string;
  storageKey: string;
}

/** Records a derived image; no row returned when another request recorded the same one first. */
export const insertDerivative = (d: NewDerivative): SqlQuery => ({
  text: `insert into file_derivative (id, project_id, sha256, params, mime_type, size, storage_driver, storage_key)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (project_id, sha256, params) do nothing
         returning id`,
  values: [d.id, d.projectId, d.sha256, d.params, d.mimeType, d.size, d.storageDriver, d.storageKey],
});

/** Forgets one derived image (its blob turned out to be missing). */
export const deleteDerivative = (id: string): SqlQuery => ({
  text: 'delete from file_derivative where id = $1',
  values: [id],
});

/** What a removed derivative leaves to delete in storage. */
export interface RemovedDerivative {
  project_id: string;
  storage_driver: string;
  storage_key: string;
}

/** The derived images of the bytes `sha256` of a project once no file of the project holds them. */
export const deleteUnusedDerivativesOf = (projectId: string, sha256: string): SqlQuery => ({
  text: `delete from file_derivative d
          where d.project_id = $1 and d.sha256 = $2
            and not exists (select 1 from file f where f.project_id = $1 and f.sha256 = $2)
          returning project_id, storage_driver, storage_key`,
  values: [projectId, sha256],
});

/**
 * Up to `batch` derived images, in any project, whose bytes no file holds any more: those left
 * behind by a process that stopped between a replace or delete and its clean-up.
 */
export const deleteUnusedDerivatives = (batch: number): SqlQuery => ({
  text: `delete from file_derivative where id in (
           select d.id from file_derivative d
            where not exists (select 1 from file f where f.project_id = d.project_id and f.sha256 = d.sha256)
            limit $1)
         returning project_id, storage_driver, storage_key`,
  values: [batch],
});
