import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { badRequest, payloadTooLarge } from '../../errors/app-error.js';
import { findJsonProblem } from '../../shared/json-guard.js';
import type { BlobStore } from '../../storage/storage.js';
import { cleanFileName, FILE_NAME_MAX, nameFromFilename } from '../../modules/files/file-name.js';
import { NO_NAME_LEFT } from '../../modules/files/file.schema.js';
import type { StagedUpload } from '../../modules/files/file.service.js';
import { pickMimeType, SNIFF_BYTES } from '../../modules/files/sniff.js';

export const tooLarge = (limit: number) => payloadTooLarge(`file exceeds the limit of ${limit} bytes (FILES_MAX_BYTES)`);

/** Counts, hashes and keeps the first bytes (for sniffing) of what flows through; fails past `limit`. */
class Meter extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');
  private readonly headParts: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) return callback(tooLarge(this.limit));
    this.hash.update(chunk);
    if (this.headLength < SNIFF_BYTES) {
      const part = Buffer.from(chunk.subarray(0, SNIFF_BYTES - this.headLength));
      this.headParts.push(part);
      this.headLength += part.length;
    }
    callback(null, chunk);
  }

  get head(): Buffer {
    return Buffer.concat(this.headParts);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

export interface ReceivedUpload extends StagedUpload {
  /** Whether the request had a `name` part (a replace keeps the old name otherwise). */
  nameGiven: boolean;
}

/**
 * Streams the `file` part of a `multipart/form-data` request into a staged blob of `store`,
 * hashing and counting on the way; nothing is held in memory beyond a chunk. Resolves once the
 * whole request is read and the bytes are staged. On any failure (client abort, size limit,
 * malformed body) the staged bytes are removed before it rejects, and the rest of the request
 * is drained so that the error response can still reach the client.
 */
export function receiveUpload(req: IncomingMessage, store: BlobStore, projectId: string, maxBytes: number): Promise<ReceivedUpload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // preservePath: the filename arrives whole and is cleaned by the same rule as the `name` part.
      parser = busboy({ headers: req.headers, preservePath: true, limits: { fields: 20, fieldSize: 64 * 1024, parts: 40, headerPairs: 100 } });
    } catch (error) {
      reject(badRequest(`Malformed multipart/form-data request: ${(error as Error).message}`));
      return;
    }
    let staging: Promise<string> | undefined;
    let meter: Meter | undefined;
    let declared: { mimeType: string; filename?: string } | undefined;
    let nameField: string | undefined;
    let settled = false;

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      parser.destroy();
      req.resume();
      const cleanup = staging ? staging.then((key) => store.remove(projectId, key)) : Promise.resolve();
      cleanup.catch(() => {}).finally(() => reject(error));
    };

    const finish = (key: string) => {
      if (settled) return;
      if (!meter || !declared) return fail(badRequest('file: a part named "file" is required'));
      const name = nameField ?? nameFromFilename(declared.filename);
      // A NUL (possible in an RFC 5987 `filename*`) would reach PostgreSQL; see json-guard.
      const problem = findJsonProblem(name);
      if (problem) return fail(badRequest(`name: ${problem.reason}`));
      settled = true;
      resolve({
        store,
        key,
        size: meter.size,
        sha256: meter.digest(),
        mimeType: pickMimeType(declared.mimeType, meter.head),
        name,
        nameGiven: nameField !== undefined,
      });
    };

    parser.on('file', (field, stream, info) => {
      if (field !== 'file' || staging || settled) {
        // Dropped; destroying the parser may still fail this stream, which nobody needs to hear.
        stream.on('error', () => {}).resume();
        return fail(badRequest(`Unexpected file part "${field}": send exactly one part named "file"`));
      }
      declared = { mimeType: info.mimeType, filename: info.filename };
      meter = new Meter(maxBytes);
      // Errors travel both ways: an aborted request fails the meter, and the meter's 413 the part.
      pipeline(stream, meter).catch(() => {});
      staging = store.stage(projectId, meter);
      staging.catch(fail);
    });
    parser.on('field', (field, value, info) => {
      if (field === 'file') return fail(badRequest('file: must be a file part (give it a filename)'));
      if (field !== 'name') return;
      const name = cleanFileName(value);
      if (info.valueTruncated || name.length > FILE_NAME_MAX) return fail(badRequest(`name: at most ${FILE_NAME_MAX} characters`));
      if (!name) return fail(badRequest(`name: ${NO_NAME_LEFT}`));
      nameField = name;
    });
    for (const limit of ['partsLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () => fail(badRequest('Too many parts in the multipart body')));
    }
    parser.on('error', (error: Error) => fail(badRequest(`Malformed multipart/form-data body: ${error.message}`)));
    parser.on('finish', () => {
      if (settled) return;
      if (!staging) return fail(badRequest('file: a part named "file" is required'));
      staging.then(finish, fail);
    });

    const aborted = () => fail(badRequest('The upload was interrupted'));
    req.on('error', aborted);
    req.on('close', () => {
      if (!req.complete) aborted();
    });
    req.pipe(parser);
  });
}
