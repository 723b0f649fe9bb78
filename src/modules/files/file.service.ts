import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../../db/find-page.js';
import { pageWindow, paginationOf, wantsCount } from '../../shared/pagination.js';
import { conflict, notFound } from '../../errors/app-error.js';
import { runSql } from '../../db/sql.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import { emitEvents } from '../events/outbox.js';
import { newEvent, type EventType } from '../events/vocabulary.js';
import { outboxOfEm } from '../../jobs/outbox.js';
import type { Logger } from '../../shared/logger.js';
import type { BlobStore, Storage } from '../../storage/storage.js';
import { removeUnusedDerivatives } from '../images/derivative.service.js';
import { FileSchema, type FileRecord } from './file.entity.js';
import { bytesHeld, fileReferenceCount, lockBytes, scopedFileCount, scopedFilePage, type MimeTypeFilter } from './file.sql.js';
import type { FileOutput, ListFilesInput, UpdateFileInput } from './file.schema.js';

export const contentPath = (projectId: string, fileId: string) => `/v1/${projectId}/files/${fileId}/content`;

export const toFileOutput = (f: FileRecord): FileOutput => ({
  id: f.id,
  name: f.name,
  mimeType: f.mimeType,
  size: f.size,
  sha256: f.sha256,
  url: contentPath(f.project.id, f.id),
  createdAt: iso(f.createdAt),
  updatedAt: iso(f.updatedAt),
});

/** Bytes already streamed into a staged blob, with what was learnt on the way. */
export interface StagedUpload {
  store: BlobStore;
  key: string;
  size: number;
  sha256: string;
  mimeType: string;
  name: string;
}

/** A file's fields a `$files` rule reads (docs/roles.md#files). */
export interface FileFields {
  name: string;
  mimeType: string;
  size: number;
}

/** Throws (403) unless the caller may leave a file with these fields: a custom role's `$files` rules. */
export type FileCheck = (fields: FileFields) => Promise<void>;

/** The list's `mimeType` parameter: one type, or a whole family (`image/*`) as a LIKE prefix. */
function mimeTypeFilter(mimeType: string | undefined): MimeTypeFilter {
  if (mimeType === undefined) return null;
  if (!mimeType.endsWith('/*')) return { equals: mimeType };
  return { like: `${mimeType.slice(0, -1).replace(/[\\%_]/g, '\\$&')}%` };
}

/** The list's `search`: a LIKE pattern for names containing it (escaped), or null. */
const nameContains = (search: string | undefined): string | null =>
  search === undefined || search === '' ? null : `%${search.replace(/[\\%_]/g, '\\$&')}%`;

export async function listFiles(em: EntityManager, projectId: string, params: ListFilesInput) {
  const mime = mimeTypeFilter(params.mimeType);
  const name = nameContains(params.search);
  const where = {
    project: projectId,
    ...(mime === null ? {} : { mimeType: 'equals' in mime ? mime.equals : { $like: mime.like } }),
    ...(name === null ? {} : { name: { $ilike: name } }),
  };
  const direction = params.sort === '-createdAt' ? 'desc' : 'asc';
  return findPage(em, FileSchema, where, params, { orderBy: { createdAt: direction, id: direction } }, toFileOutput);
}

/** As listFiles, among the files inside `scope` (a compiled `$files` condition, roles/files-policy.ts). */
export async function listFilesInScope(em: EntityManager, projectId: string, params: ListFilesInput, scope: string) {
  const { offset, limit } = pageWindow(params);
  const filter = { mime: mimeTypeFilter(params.mimeType), name: nameContains(params.search) };
  const [rows, total] = await Promise.all([
    runSql<Record<string, unknown>>(em, scopedFilePage(projectId, filter, scope, offset, limit, params.sort === '-createdAt')),
    wantsCount(params) ? runSql<{ n: number }>(em, scopedFileCount(projectId, filter, scope)).then(([row]) => row.n) : Promise.resolve(null),
  ]);
  const files = rows.slice(0, params.size).map((row) => em.map(FileSchema, row));
  return { list: files.map(toFileOutput), pagination: paginationOf(params, rows.length, total) };
}

/** The files of the project among `ids` (UUIDs), in one query; unknown ids are left out. */
export async function findFiles(em: EntityManager, projectId: string, ids: string[]): Promise<FileRecord[]> {
  return ids.length === 0 ? [] : em.find(FileSchema, { id: { $in: ids }, project: projectId });
}

export async function findFile(em: EntityManager, projectId: string, fileId: string, lock = false): Promise<FileRecord> {
  const file = isUuid(fileId)
    ? await em.findOne(FileSchema, { id: fileId.toLowerCase(), project: projectId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {})
    : null;
  if (!file) throw notFound('File');
  return file;
}

/** The `files.*` event of a change, recorded in its transaction (docs/webhooks.md#how-it-runs); flushes first. */
async function emitFileEvent(tx: EntityManager, type: EventType, file: FileRecord): Promise<void> {
  await tx.flush();
  await emitEvents(outboxOfEm(tx), [newEvent(type, file.project.id, null, toFileOutput(file))]);
}

export async function updateFile(em: EntityManager, file: FileRecord, input: UpdateFileInput): Promise<FileRecord> {
  return em.transactional(async (tx) => {
    const managed = tx.merge(file);
    if (input.name !== undefined) managed.name = input.name;
    await emitFileEvent(tx, 'files.updated', managed);
    return managed;
  });
}

/** Rows of live tables whose live `file` columns hold `fileId` (alone or in a `multiple` array). */
export async function countFileReferences(em: EntityManager, projectId: string, fileId: string): Promise<number> {
  const [row] = await runSql<{ n: number }>(em, fileReferenceCount(projectId, fileId));
  return row?.n ?? 0;
}

/** A staged blob whose metadata never committed must not stay behind. */
async function commitOrDiscard<T>(em: EntityManager, upload: StagedUpload, projectId: string, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  try {
    return await em.transactional(async (tx) => {
      const result = await work(tx);
      await tx.flush();
      // Last step before COMMIT: the local driver moves the bytes into place here.
      await upload.store.commit(tx, projectId, upload.key);
      return result;
    });
  } catch (error) {
    // A staged blob that cannot be removed now (database gone) is swept later.
    await upload.store.remove(projectId, upload.key).catch(() => {});
    throw error;
  }
}

/** `allow`: checks the upload's fields first (a refusal discards the staged bytes). */
export async function createFile(em: EntityManager, projectId: string, upload: StagedUpload, allow?: FileCheck): Promise<FileRecord> {
  return commitOrDiscard(em, upload, projectId, async (tx) => {
    await allow?.(upload);
    const file = tx.create(FileSchema, {
      project: projectId,
      name: upload.name,
      mimeType: upload.mimeType,
      size: upload.size,
      sha256: upload.sha256,
      storageDriver: upload.store.driver,
      storageKey: upload.key,
      storageProjectId: projectId,
    });
    await emitFileEvent(tx, 'files.created', file);
    return file;
  });
}

/**
 * New bytes for the same id (docs/resources.md#files). The old bytes are dropped in the same transaction and
 * deleted once it has committed; `name` changes only when the upload named one. `allow` checks the
 * file as the replace leaves it (a refusal discards the staged bytes).
 */
export async function replaceFile(
  em: EntityManager,
  storage: Storage,
  logger: Logger,
  projectId: string,
  fileId: string,
  upload: StagedUpload & { nameGiven: boolean },
  allow?: FileCheck,
): Promise<FileRecord> {
  let old: { store: BlobStore; key: string; owner: string; sha256: string; held: boolean } | undefined;
  const file = await commitOrDiscard(em, upload, projectId, async (tx) => {
    const file = await findFile(tx, projectId, fileId, true);
    await allow?.({ name: upload.nameGiven ? upload.name : file.name, mimeType: upload.mimeType, size: upload.size });
    const previous = { store: storage.of(file.storageDriver), key: file.storageKey, owner: file.storageProjectId, sha256: file.sha256 };
    if (upload.nameGiven) file.name = upload.name;
    file.mimeType = upload.mimeType;
    file.size = upload.size;
    file.sha256 = upload.sha256;
    file.storageDriver = upload.store.driver;
    file.storageKey = upload.key;
    file.storageProjectId = projectId;
    file.updatedAt = new Date();
    await tx.flush();
    old = { ...previous, held: await bytesStillHeld(tx, previous.store.driver, previous.key) };
    if (!old.held) await old.store.drop(tx, old.owner, old.key);
    await emitFileEvent(tx, 'files.updated', file);
    return file;
  });
  if (old) {
    if (!old.held) await removeQuietly(old.store, old.owner, old.key, logger);
    if (old.sha256 !== file.sha256) await removeDerivativesQuietly(em, storage, logger, projectId, old.sha256);
  }
  return file;
}

/**
 * Whether another file still holds these bytes (a copy's, or the original of a copy:
 * docs/concepts.md#copying-a-project), asked once this transaction's row let go of them.
 */
async function bytesStillHeld(tx: EntityManager, driver: string, key: string): Promise<boolean> {
  await runSql(tx, lockBytes(driver, key));
  const [row] = await runSql<{ held: boolean }>(tx, bytesHeld(driver, key));
  return row.held;
}

/** A file that contents still reference is 409, naming how many rows do (docs/resources.md#files). */
export async function deleteFile(
  em: EntityManager,
  storage: Storage,
  logger: Logger,
  projectId: string,
  fileId: string,
): Promise<void> {
  const { file, held } = await em.transactional(async (tx) => {
    const file = await findFile(tx, projectId, fileId, true);
    const references = await countFileReferences(tx, projectId, file.id);
    if (references > 0) {
      throw conflict(`file is referenced by ${references} contents row${references === 1 ? '' : 's'}; remove the references first`);
    }
    const deleted = toFileOutput(file);
    tx.remove(file);
    await tx.flush();
    const held = await bytesStillHeld(tx, file.storageDriver, file.storageKey);
    if (!held) await storage.of(file.storageDriver).drop(tx, file.storageProjectId, file.storageKey);
    await emitEvents(outboxOfEm(tx), [newEvent('files.deleted', projectId, null, deleted)]);
    return { file, held };
  });
  if (!held) await removeQuietly(storage.of(file.storageDriver), file.storageProjectId, file.storageKey, logger);
  await removeDerivativesQuietly(em, storage, logger, projectId, file.sha256);
}

/** After a commit the row no longer points at these bytes: a failure here only wastes space. */
async function removeQuietly(store: BlobStore, projectId: string, key: string, logger: Logger): Promise<void> {
  await store.remove(projectId, key).catch((error: unknown) => logger.warn({ err: error, key }, 'could not remove replaced file bytes'));
}

/** Derived images of bytes no file holds any more; what fails here is left to the start-up sweep. */
async function removeDerivativesQuietly(em: EntityManager, storage: Storage, logger: Logger, projectId: string, sha256: string): Promise<void> {
  await removeUnusedDerivatives(em, storage, logger, projectId, sha256).catch((error: unknown) =>
    logger.warn({ err: error, sha256 }, 'could not remove derived images of replaced or deleted bytes'),
  );
}
