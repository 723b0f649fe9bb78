import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { AppDeps } from '../../app-deps.js';
import { unsupportedMediaType } from '../../errors/app-error.js';
import { mediaType } from '../media-type.js';
import { sendError } from '../send-error.js';
import type { BlobStore } from '../../storage/storage.js';
import { contentDisposition, notModified, requestedRange } from './download.js';
import { createFile, replaceFile, toFileOutput } from '../../modules/files/file.service.js';
import { fileRules } from '../../auth/file-rules.js';
import { receiveUpload, tooLarge, type ReceivedUpload } from './multipart.js';
import { readImageQuery } from './image-query.js';
import { sendDerivedImage } from './image-content.js';
import type { PlainRoute } from '../plain-route.js';
import { downloadOperation, downloadResponses, multipart, uploadOperation } from './file-routes.openapi.js';

/**
 * Room for part headers and small fields around the file in a multipart body: a declared
 * Content-Length beyond FILES_MAX_BYTES plus this is refused before a byte is read.
 */
const MULTIPART_OVERHEAD = 2 * 1024 * 1024;

export const isMultipart = (req: IncomingMessage) => mediaType(req) === 'multipart/form-data';

/**
 * The plain file routes (trpc-to-openapi has no multipart): upload, replace and download (of
 * the bytes, or of a derived image: image-content.ts). A custom role's `$files` rules decide what
 * its holder may do (src/auth/file-rules.ts, docs/roles.md#files).
 */
export function fileRoutes(deps: AppDeps): PlainRoute[] {
  /** 415 unless multipart; 413 at once when the declared length is already too much. */
  const receive = (req: Request, store: BlobStore, projectId: string): Promise<ReceivedUpload> => {
    if (!isMultipart(req)) throw unsupportedMediaType('Content-Type must be multipart/form-data');
    const max = deps.config.FILES_MAX_BYTES;
    if (Number(req.headers['content-length'] ?? 0) > max + MULTIPART_OVERHEAD) throw tooLarge(max);
    return receiveUpload(req, store, projectId, max);
  };

  const upload: PlainRoute = {
    method: 'post',
    path: '/{projectId}/files',
    access: 'write',
    openapi: { operation: uploadOperation },
    async handle(req, res, { access, em, committed }) {
      // 403 before the body is read when no rule lets the caller upload; its `where` is checked on the upload.
      const allow = fileRules(access, em).allow('create');
      const upload = await receive(req, deps.storage.current, access.project.id);
      const file = await createFile(em, access.project.id, upload, allow);
      await committed();
      const path = req.originalUrl.split('?')[0].replace(/\/+$/, '');
      res.status(201).location(`${path}/${file.id}`).json(toFileOutput(file));
    },
  };

  const replace: PlainRoute = {
    method: 'put',
    path: '/{projectId}/files/{fileId}',
    access: 'write',
    // A JSON PUT (rename) goes on to the `files.update` procedure.
    takes: isMultipart,
    openapi: { requestBodies: { 'multipart/form-data': multipart(true) } },
    async handle(req, res, { access, em, committed }) {
      const fileId = String(req.params.fileId);
      // 403/404 before the body is read; the transaction looks again, under a lock.
      const rules = fileRules(access, deps.orm.em.fork());
      const allow = rules.allow('update', await rules.address(fileId, 'update'));
      const upload = await receive(req, deps.storage.current, access.project.id);
      const file = await replaceFile(em, deps.storage, deps.logger, access.project.id, fileId, upload, allow);
      await committed();
      res.json(toFileOutput(file));
    },
  };

  const download: PlainRoute = {
    method: 'get',
    path: '/{projectId}/files/{fileId}/content',
    access: 'read',
    openapi: { operation: downloadOperation, responses: downloadResponses },
    async handle(req, res, { access, em }) {
      const file = await fileRules(access, em).download(String(req.params.fileId));
      // With transformation parameters (w, h, fit, format, q): a derived image (docs/resources.md#image-transformations).
      const imageQuery = readImageQuery(req.query);
      if (imageQuery) {
        await sendDerivedImage(deps, req, res, file, imageQuery);
        return;
      }
      const etag = `"${file.sha256}"`;
      const validators = { ETag: etag, 'Last-Modified': file.updatedAt.toUTCString(), 'Cache-Control': 'private, no-cache', 'Accept-Ranges': 'bytes' };
      if (notModified(req.headers, etag)) {
        res.status(304).set(validators).end();
        return;
      }
      const range = requestedRange(req.headers, file.size, etag);
      if (range === 'unsatisfiable') {
        // 416 has no code of its own: BAD_REQUEST in the usual body (docs/reliability.md#errors).
        const message = `Range not satisfiable: the file has ${file.size} bytes`;
        sendError(res, { status: 416, body: { error: { code: 'BAD_REQUEST', message, details: null } }, headers: { 'Content-Range': `bytes */${file.size}` }, internal: false });
        return;
      }
      const store = deps.storage.of(file.storageDriver);
      const stream = req.method === 'HEAD' ? null : await store.open(file.storageProjectId, file.storageKey, file.size, range ?? undefined);
      const headers: Record<string, string> = {
        ...validators,
        // The stored type exactly (express's res.set would append a charset to text types).
        'Content-Type': file.mimeType,
        'Content-Length': String(range ? range.end - range.start + 1 : file.size),
        'Content-Disposition': contentDisposition(file.mimeType, file.name),
        ...(range ? { 'Content-Range': `bytes ${range.start}-${range.end}/${file.size}` } : {}),
      };
      res.statusCode = range ? 206 : 200;
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      if (!stream) {
        res.end();
        return;
      }
      await pipeline(stream, res).catch((error: { code?: string }) => {
        // A client gone before the first byte makes pipeline refuse (ERR_STREAM_UNABLE_TO_PIPE)
        // without closing the source: the local driver's file handle would stay open.
        stream.destroy();
        // The client going away is normal; anything else is a storage fault mid-body.
        if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE' && error.code !== 'ERR_STREAM_UNABLE_TO_PIPE') {
          deps.logger.error({ err: error, path: req.originalUrl, requestId: res.locals.requestId }, 'file download failed');
        }
      });
    },
  };

  return [upload, replace, download];
}
