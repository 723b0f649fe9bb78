import { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Orm } from '../../db/orm.js';
import { runSql, sqlOn } from '../../db/sql.js';
import { uuidv7 } from '../../shared/ids.js';
import type { Logger } from '../../shared/logger.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import type { BlobStore, Storage, StorageDriver } from '../../storage/storage.js';
import * as q from './derivative.sql.js';
import type { ImageRequest } from './image-request.js';
import type { ImageTransformer, TransformedImage } from './image-transformer.js';

/** The file a transformation reads: its bytes and where they are. */
export interface SourceImage {
  projectId: string;
  fileId: string;
  sha256: string;
  size: number;
  store: BlobStore;
  storageKey: string;
  /** The project the bytes are stored under (another one's for a copied file). */
  storageProjectId: string;
}

/** A derived image to send; `body` is null when none was asked for (HEAD). */
export interface DerivedImage {
  mimeType: string;
  size: number;
  body: Readable | null;
}

/** Derivatives removed per statement by the sweep. */
const SWEEP_BATCH = 100;

/** Names a derived image within this process: a project's bytes and the normalized parameters. */
const derivativeKey = (source: SourceImage, request: ImageRequest) => `${source.projectId}/${source.sha256}/${request.key}`;

/** The whole of a stored blob of `size` bytes, for the decoder. */
async function readAll(stream: Readable, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks, size);
}

/**
 * Derived images (docs/resources.md#image-transformations), computed once per (original bytes, normalized parameters) and
 * stored through the configured storage driver, so that every API replica serves them from
 * there. Within a process, concurrent first requests for the same derivative share one
 * computation; across processes two may compute it, and the unique key of `file_derivative`
 * keeps one (the other's blob is removed).
 */
export class ImageDerivatives {
  private readonly computing = new Map<string, Promise<TransformedImage>>();
  /**
   * Rows already read, by `derivativeKey`. A row never changes, it is only deleted with its
   * blob (its bytes are no file's any more, or the blob went missing); a remembered row whose
   * blob is gone fails to open and is then forgotten like a stored one. Repeats then cost no
   * database round trip beyond the file's own look-up.
   */
  private readonly rows = new TtlCache<string, q.DerivativeRow>({ ttlMs: 10 * 60_000, maxEntries: 10_000 });

  constructor(
    private readonly deps: { orm: Orm; pool: pg.Pool; storage: Storage; logger: Logger; transformer: ImageTransformer },
  ) {}

  async derive(source: SourceImage, request: ImageRequest, withBody: boolean): Promise<DerivedImage> {
    const key = derivativeKey(source, request);
    const row = this.rows.get(key) ?? (await sqlOn(this.deps.pool)<q.DerivativeRow>(q.findDerivative(source.projectId, source.sha256, request.key)))[0];
    if (row) {
      this.rows.set(key, row);
      const stored = { mimeType: row.mime_type, size: Number(row.size) };
      if (!withBody) return { ...stored, body: null };
      const body = await this.openStored(source.projectId, row);
      if (body) return { ...stored, body };
      this.rows.delete(key);
    }
    const image = await this.computeOnce(key, source, request);
    return { mimeType: image.mimeType, size: image.data.length, body: withBody ? Readable.from([image.data]) : null };
  }

  /** The stored bytes, or null (row and whatever is left of them removed) when they are gone. */
  private async openStored(projectId: string, row: q.DerivativeRow): Promise<Readable | null> {
    let store: BlobStore | undefined;
    try {
      // (`of` throws for a driver this process is not configured for.)
      store = this.deps.storage.of(row.storage_driver as StorageDriver);
      return await store.open(projectId, row.storage_key, Number(row.size));
    } catch (error) {
      this.deps.logger.warn({ err: error, derivative: row.id }, 'stored derived image is missing; computing it again');
      await sqlOn(this.deps.pool)(q.deleteDerivative(row.id));
      await store?.remove(projectId, row.storage_key).catch(() => {});
      return null;
    }
  }

  private computeOnce(key: string, source: SourceImage, request: ImageRequest): Promise<TransformedImage> {
    let pending = this.computing.get(key);
    if (!pending) {
      pending = this.compute(source, request).finally(() => this.computing.delete(key));
      this.computing.set(key, pending);
    }
    return pending;
  }

  private async compute(source: SourceImage, request: ImageRequest): Promise<TransformedImage> {
    const load = async () => readAll(await source.store.open(source.storageProjectId, source.storageKey, source.size), source.size);
    const image = await this.deps.transformer.transform(load, request).catch((error: unknown) => {
      // The client's 422 says it in our words; what libvips said is kept for the operator.
      if (error instanceof Error && error.cause !== undefined) this.deps.logger.info({ err: error.cause, fileId: source.fileId, params: request.key }, 'image not transformed');
      throw error;
    });
    // The image is answered even when it cannot be kept: the next request computes it again.
    await this.record(source, request, image).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, fileId: source.fileId, params: request.key }, 'could not store a derived image'),
    );
    return image;
  }

  /**
   * Stores the image and its row, two-phase as uploads are: staged, then committed in the
   * transaction that inserts the row, which locks the file while it still holds the original
   * bytes. No row (the file changed meanwhile, or another process recorded the same
   * derivative first): the staged blob is removed.
   */
  private async record(source: SourceImage, request: ImageRequest, image: TransformedImage): Promise<void> {
    const store = this.deps.storage.current;
    const key = await store.stage(source.projectId, Readable.from([image.data]));
    let recorded = false;
    try {
      recorded = await this.deps.orm.em.fork().transactional(async (tx) => {
        if ((await runSql(tx, q.lockSource(source.projectId, source.fileId, source.sha256))).length === 0) return false;
        const row = { id: uuidv7(), projectId: source.projectId, sha256: source.sha256, params: request.key };
        const stored = { mimeType: image.mimeType, size: image.data.length, storageDriver: store.driver, storageKey: key };
        if ((await runSql(tx, q.insertDerivative({ ...row, ...stored }))).length === 0) return false;
        await store.commit(tx, source.projectId, key);
        return true;
      });
    } finally {
      if (!recorded) await store.remove(source.projectId, key).catch(() => {});
    }
  }
}

async function removeBlobs(storage: Storage, logger: Logger, removed: q.RemovedDerivative[]): Promise<void> {
  for (const d of removed) {
    try {
      // (`of` throws for a driver this process is not configured for: the blob stays.)
      await storage.of(d.storage_driver as StorageDriver).remove(d.project_id, d.storage_key);
    } catch (error) {
      logger.warn({ err: error, key: d.storage_key }, 'could not remove a derived image');
    }
  }
}

/**
 * Removes the derived images of the bytes `sha256` once no file of the project holds them
 * (after a delete or a replace has committed): rows, then blobs.
 */
export async function removeUnusedDerivatives(em: EntityManager, storage: Storage, logger: Logger, projectId: string, sha256: string): Promise<void> {
  await removeBlobs(storage, logger, await runSql<q.RemovedDerivative>(em, q.deleteUnusedDerivativesOf(projectId, sha256)));
}

/** Removes every derived image whose bytes no file holds any more (what a stopped process left); returns how many. */
export async function sweepUnusedDerivatives(em: EntityManager, storage: Storage, logger: Logger): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await runSql<q.RemovedDerivative>(em, q.deleteUnusedDerivatives(SWEEP_BATCH));
    await removeBlobs(storage, logger, removed);
    total += removed.length;
    if (removed.length < SWEEP_BATCH) return total;
  }
}
