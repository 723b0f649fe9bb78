import { z } from 'zod';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { FILE_NAME_MAX, fileOutput } from '../modules/files/file.schema.js';

/*
 * The OpenAPI face of the plain-express file routes (file-routes.ts), which the generator
 * cannot see: extra path items for upload and download, and the multipart body of PUT.
 */

const collection = '/{projectId}/files';
const item = '/{projectId}/files/{fileId}';
const content = '/{projectId}/files/{fileId}/content';

/** For the `/v1` route index (404 vs 405). PUT is a procedure too. */
export const fileRouteEntries = [
  { method: 'POST', path: collection },
  { method: 'GET', path: content },
];

const { $schema: _ignored, ...fileSchema } = z.toJSONSchema(fileOutput) as Record<string, unknown>;

const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const headerParam = (name: string, description: string) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } });

const multipart = (fileRequired: boolean) => ({
  schema: {
    type: 'object',
    required: fileRequired ? ['file'] : [],
    properties: {
      file: { type: 'string', format: 'binary', description: 'The bytes; its Content-Type is stored (sniffed when missing or generic)' },
      name: { type: 'string', maxLength: FILE_NAME_MAX, description: 'Display name (default: the uploaded file name). Both are reduced to their last path component (after / or \\) without control or bidi characters; a name with nothing left is 400' },
    },
  },
});

const fileJson = { 'application/json': { schema: fileSchema } };
const bytes = { '*/*': { schema: { type: 'string', format: 'binary' } } };
const header = (description: string) => ({ description, schema: { type: 'string' } });
const downloadHeaders = {
  ETag: header('"<sha256>"'),
  'Content-Length': header('Bytes in this response'),
  'Content-Disposition': header('inline for images, audio, video, PDF and plain text; attachment otherwise'),
  'Accept-Ranges': header('bytes'),
};

export const fileOpenApiPaths = {
  [collection]: {
    post: {
      operationId: 'files-upload',
      tags: ['Files'],
      summary: 'Upload a file (multipart/form-data: file, name?); streamed, up to FILES_MAX_BYTES',
      security: [{ bearerAuth: [] }],
      parameters: [pathParam('projectId', 'Project id')],
      requestBody: { required: true, content: { 'multipart/form-data': multipart(true) } },
      responses: { '201': { description: 'Created; `Location` names the new file', content: fileJson } },
    },
  },
  [content]: {
    get: {
      operationId: 'files-content',
      tags: ['Files'],
      summary: 'Download a file’s bytes (single byte ranges supported)',
      security: [{ bearerAuth: [] }],
      parameters: [
        pathParam('projectId', 'Project id'),
        pathParam('fileId', 'File id'),
        headerParam('Range', 'bytes=<start>-<end>, bytes=<start>- or bytes=-<suffix length>'),
        headerParam('If-None-Match', 'The ETag of a cached copy: 304 when unchanged'),
        headerParam('If-Range', 'An ETag: the Range applies only while the file still has it'),
      ],
      responses: { '200': { description: 'The bytes, with the stored Content-Type', headers: downloadHeaders, content: bytes } },
    },
  },
};

/** Statuses of the download besides 200 (buildOpenApiDocument keeps one success per operation). */
const downloadResponses = {
  '206': { description: 'The requested range', headers: { ...downloadHeaders, 'Content-Range': header('bytes <start>-<end>/<size>') }, content: bytes },
  '304': { description: 'Not modified (If-None-Match matched the ETag)' },
  '416': {
    description: 'Range not satisfiable; `Content-Range: bytes */<size>`',
    headers: { 'Content-Range': header('bytes */<size>') },
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        example: { error: { code: 'BAD_REQUEST', message: 'Range not satisfiable: the file has 5 bytes', details: null } },
      },
    },
  },
};

/** Adds what the generator leaves out: the multipart face of PUT, and the 206/304/416 of downloads. */
export function documentFileRoutes(doc: OpenAPIObject): OpenAPIObject {
  type Op = { requestBody?: { content?: Record<string, unknown> }; responses?: Record<string, unknown> };
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Op>>;
  const put = paths[item]?.put;
  if (put) {
    put.requestBody ??= { content: {} };
    put.requestBody.content = { 'multipart/form-data': multipart(true), ...put.requestBody.content };
  }
  const get = paths[content]?.get;
  if (get?.responses) get.responses = Object.fromEntries(Object.entries({ ...get.responses, ...downloadResponses }).sort(([a], [b]) => a.localeCompare(b)));
  return doc;
}
