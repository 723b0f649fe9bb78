import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { AppDeps } from '../../app-deps.js';
import { contentDisposition, notModified } from './download.js';
import type { FileRecord } from '../../modules/files/file.entity.js';
import { resolveImageRequest, type ImageQuery } from '../../modules/images/image-request.js';

/**
 * `Cache-Control` of derived images: `private` (the URL needs a credential; no shared cache may
 * keep it) and `no-cache` (a browser revalidates before each use). The URL stays the same when
 * the file is replaced, so any max-age would show the old image for that long; revalidation
 * is a 304 that costs one file lookup and no image work, since the ETag is known from the
 * file's sha256 and the parameters alone.
 */
const CACHE_CONTROL = 'private, no-cache';

/** The stored name with the extension of the output format (`photo.jpg` as WebP: `photo.webp`). */
const renamed = (name: string, format: string) => `${name.replace(/\.[A-Za-z0-9]{1,5}$/, '')}.${format === 'jpeg' ? 'jpg' : format}`;

/**
 * Answers `GET/HEAD .../files/{fileId}/content` with transformation parameters (docs/resources.md#image-transformations): the
 * derived image, whole (200; no ranges), or 304 when `If-None-Match` names its ETag. 400 when
 * the file is not an image, 422 when its bytes cannot be transformed.
 */
export async function sendDerivedImage(deps: AppDeps, req: Request, res: Response, file: FileRecord, query: ImageQuery): Promise<void> {
  const request = resolveImageRequest(query, file.mimeType);
  const etag = `"${file.sha256}-${request.key}"`;
  const validators = { ETag: etag, 'Cache-Control': CACHE_CONTROL };
  if (notModified(req.headers, etag)) {
    res.status(304).set(validators).end();
    return;
  }
  const source = {
    projectId: file.project.id,
    fileId: file.id,
    sha256: file.sha256,
    size: file.size,
    store: deps.storage.of(file.storageDriver),
    storageKey: file.storageKey,
    storageProjectId: file.storageProjectId,
  };
  const image = await deps.images.derive(source, request, req.method !== 'HEAD');
  const headers = {
    ...validators,
    'Content-Type': image.mimeType,
    'Content-Length': String(image.size),
    'Content-Disposition': contentDisposition(image.mimeType, renamed(file.name, request.format)),
    // A derived image is always sent whole.
    'Accept-Ranges': 'none',
  };
  res.statusCode = 200;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (!image.body) {
    res.end();
    return;
  }
  const body = image.body;
  await pipeline(body, res).catch((error: { code?: string }) => {
    // A client gone before the first byte makes pipeline refuse (ERR_STREAM_UNABLE_TO_PIPE)
    // without closing the source, which would leave a stored blob's file handle open.
    body.destroy();
    if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE' && error.code !== 'ERR_STREAM_UNABLE_TO_PIPE') {
      deps.logger.error({ err: error, path: req.originalUrl, requestId: res.locals.requestId }, 'derived image download failed');
    }
  });
}
