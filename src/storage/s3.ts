import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { isUuid, uuidv7 } from '../shared/ids.js';
import type { BlobStore, ByteRange } from './blob-store.js';

export interface S3Settings {
  bucket: string;
  region: string;
  /** MinIO, Ceph, R2…; unset: AWS. */
  endpoint?: string;
  /** Both or neither; neither: the SDK's default credential chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/**
 * One client per process: it holds the connection pool. Checksums are computed only where the
 * API requires them (DeleteObjects): the SDK's newer default adds CRC32 checksums that several
 * S3-compatible servers refuse or store wrongly, and the SHA-256 of every upload is computed by
 * Tabula itself anyway.
 */
export function createS3Client(settings: S3Settings): S3Client {
  const { region, endpoint, accessKeyId, secretAccessKey, forcePathStyle } = settings;
  return new S3Client({
    region,
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** S3 allows at most this many parts in a multipart upload, each at least 5 MiB (but the last). */
const MAX_PARTS = 10_000;
const MIN_PART_BYTES = 5 * 1024 * 1024;
/**
 * Parts uploaded at once. An upload holds about (QUEUE_SIZE + 1) parts in memory, 15 MiB at the
 * usual 5 MiB part size, whatever the size of the file. Measured with 1 GiB through the API
 * (`npm run bench -- --only s3`, 2026-11-26): peak RSS growth +55 to +68 MB with 1 or 2 parts in
 * flight, +61 to +108 MB with 4 (the garbage of the parts' copies, freed by the next GC, is most
 * of it); 2 keeps a second part moving while one waits on the network.
 */
const QUEUE_SIZE = 2;
/** DeleteObjects takes at most 1,000 keys; ListObjectsV2 pages hold at most as many. */
const DELETE_BATCH = 1000;

const STAGED = 'staged/';
const COMMITTED = 'projects/';

/**
 * STORAGE_DRIVER=s3: bytes in an S3-compatible bucket, so that API replicas share files without
 * a shared disk or the database's weight.
 *
 * Layout: `projects/<projectId>/<key>` holds a file's bytes (the project in the name: keys of two
 * projects never meet, and a purge removes one prefix). An object cannot be renamed cheaply, so
 * staging is a marker: `staged/<projectId>/<key>`, an empty object written before the bytes
 * stream in and deleted by `commit`, in the file row's transaction. A marker that outlives its
 * request belongs to a process that died mid-upload: `sweep` deletes it and the bytes it names.
 * (As with the local driver's rename, a process that dies between that delete and the COMMIT
 * leaves bytes that no row names.)
 */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private readonly partSize: number;

  /** `maxBytes` (FILES_MAX_BYTES) sets the part size: the largest file must fit in 10,000 parts. */
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    maxBytes: number,
  ) {
    this.partSize = Math.max(MIN_PART_BYTES, Math.ceil(maxBytes / MAX_PARTS));
  }

  async stage(projectId: string, source: Readable): Promise<string> {
    const key = uuidv7();
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: stagedKey(projectId, key), Body: '', ContentLength: 0 }));
    const upload = new Upload({
      client: this.client,
      // lib-storage guesses a body's length from properties such as `size` (which the upload's
      // meter has, counting the bytes so far): a plain stream over the source has none.
      params: { Bucket: this.bucket, Key: objectKey(projectId, key), Body: Readable.from(source, { objectMode: false }) },
      partSize: this.partSize,
      queueSize: QUEUE_SIZE,
      // Aborted below, so that a failure to abort cannot hide why the upload failed.
      leavePartsOnError: true,
    });
    try {
      await upload.done();
    } catch (error) {
      // If these fail too (bucket unreachable), the marker stays and the sweep finishes the job.
      if (upload.uploadId) await this.abortMultipartUpload(objectKey(projectId, key), upload.uploadId).catch(() => {});
      await this.remove(projectId, key).catch(() => {});
      // The source's own failure (client gone, size limit) rather than what it did to the upload.
      throw source.errored ?? error;
    }
    return key;
  }

  /**
   * Deleting the marker makes the bytes permanent. A marker already gone means the sweep took the
   * bytes with it: the transaction must not commit a row that points at nothing.
   */
  async commit(_tx: unknown, projectId: string, key: string): Promise<void> {
    const marker = stagedKey(projectId, key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: marker }));
    } catch (error) {
      if (isMissing(error)) throw new Error(`staged blob ${key} is gone`);
      throw error;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: marker }));
  }

  async drop(): Promise<void> {
    // Nothing in the database: `remove` deletes the object once the transaction has committed.
  }

  async remove(projectId: string, key: string): Promise<void> {
    await this.deleteKeys([objectKey(projectId, key), stagedKey(projectId, key)]);
  }

  async open(projectId: string, key: string, size: number, range?: ByteRange): Promise<Readable> {
    const wanted = range ?? { start: 0, end: size - 1 };
    const name = objectKey(projectId, key);
    // Asked before the response starts: a missing object is a 500, not a truncated body.
    const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: name, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
    const body = answer.Body;
    const served = servedRange(answer.ContentRange, answer.ContentLength);
    if (!(body instanceof Readable) || !served || served.start > wanted.start || served.end < wanted.end) {
      if (body instanceof Readable) body.destroy();
      throw new Error(`object ${name} answered ${answer.ContentRange ?? `${answer.ContentLength} bytes`} for bytes ${wanted.start}-${wanted.end}`);
    }
    if (served.start === wanted.start && served.end === wanted.end) return body;
    // A server may answer with more than the range asked (HTTP lets it ignore Range; s3rver
    // reads `bytes=0-0` as the whole object): the slice is cut out here.
    return Readable.from(slice(body, wanted.start - served.start, wanted.end - wanted.start + 1), { objectMode: false });
  }

  async sweep(olderThanMs: number): Promise<number> {
    const now = Date.now();
    let removed = 0;
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: STAGED })) {
      const stale = (page.Contents ?? [])
        .filter((object) => object.LastModified && now - object.LastModified.getTime() > olderThanMs)
        .flatMap((object) => {
          const staged = parseStaged(object.Key ?? '');
          return staged ? [{ marker: object.Key!, bytes: objectKey(staged.projectId, staged.key) }] : [];
        });
      // The bytes first: a marker is only deleted once what it names is gone.
      await this.deleteKeys(stale.map((s) => s.bytes));
      await this.deleteKeys(stale.map((s) => s.marker));
      removed += stale.length;
    }
    await this.abortStaleMultipartUploads(now, olderThanMs);
    return removed;
  }

  /** Removes every object of a project, committed or staged (purge). */
  async removeProject(projectId: string): Promise<void> {
    if (!isUuid(projectId)) throw new Error(`invalid project id ${projectId}`);
    for (const prefix of [`${COMMITTED}${projectId}/`, `${STAGED}${projectId}/`]) {
      for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: prefix })) {
        await this.deleteKeys((page.Contents ?? []).map((object) => object.Key ?? '').filter(Boolean));
      }
    }
  }

  /**
   * The parts of a multipart upload whose process died are invisible to listings but stored (and
   * billed) until aborted. Servers that cannot list uploads (s3rver, some S3-compatible stores)
   * answer NotImplemented: there a bucket lifecycle rule (AbortIncompleteMultipartUpload) does it.
   */
  private async abortStaleMultipartUploads(now: number, olderThanMs: number): Promise<void> {
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      let page;
      try {
        page = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: COMMITTED, ...markers }));
      } catch (error) {
        if ((error as { name?: string }).name === 'NotImplemented') return;
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || now - upload.Initiated.getTime() <= olderThanMs) continue;
        await this.abortMultipartUpload(upload.Key, upload.UploadId);
      }
      if (!page.IsTruncated) return;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  private async abortMultipartUpload(objectKey: string, uploadId: string): Promise<void> {
    await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: uploadId }));
  }

  /** Deletes `keys`, 1,000 a request; a missing key is fine, a refusal is not. */
  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const answer = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      const refused = answer.Errors ?? [];
      if (refused.length > 0) throw new Error(`could not delete ${refused.length} object(s), e.g. ${refused[0].Key}: ${refused[0].Code} ${refused[0].Message}`);
    }
  }
}

/** Keys and project ids are UUIDs we generated; anything else must never become an object key. */
function checked(projectId: string, key: string): string {
  if (!isUuid(projectId) || !isUuid(key)) throw new Error(`invalid storage key ${projectId}/${key}`);
  return `${projectId}/${key}`;
}

const objectKey = (projectId: string, key: string) => COMMITTED + checked(projectId, key);
const stagedKey = (projectId: string, key: string) => STAGED + checked(projectId, key);

/** `staged/<projectId>/<key>` → its parts; null for anything else under the prefix (left alone). */
function parseStaged(marker: string): { projectId: string; key: string } | null {
  const [projectId, key, ...rest] = marker.slice(STAGED.length).split('/');
  return rest.length === 0 && isUuid(projectId ?? '') && isUuid(key ?? '') ? { projectId, key } : null;
}

/** The bytes an answer holds: its Content-Range, or the whole object (a 200). */
function servedRange(contentRange: string | undefined, contentLength: number | undefined): ByteRange | null {
  if (contentRange !== undefined) {
    const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
    return match ? { start: Number(match[1]), end: Number(match[2]) } : null;
  }
  return contentLength === undefined ? null : { start: 0, end: contentLength - 1 };
}

/** `take` bytes of `body` after the first `skip`; fails if the body ends before. */
async function* slice(body: Readable, skip: number, take: number): AsyncGenerator<Buffer> {
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const from = Math.min(skip, chunk.length);
    skip -= from;
    const piece = chunk.subarray(from, from + take);
    take -= piece.length;
    if (piece.length > 0) yield piece;
    // Leaving the loop destroys the body: the rest of the answer is not read.
    if (take === 0) return;
  }
  if (take > 0) throw new Error(`the object ended ${take} bytes early`);
}

const isMissing = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};
