import { z } from 'zod';
import { FILE_NAME_MAX, fileOutput } from '../../modules/files/file.schema.js';
import { DEFAULT_QUALITY, FITS, MAX_DIMENSION, OUTPUT_FORMATS } from '../../modules/images/image-request.js';
import { errorResponse } from '../../openapi/responses.js';

/*
 * The OpenAPI face of the plain-express file routes (file-routes.ts), which the generator
 * cannot see: extra path items for upload and download, and the multipart body of PUT.
 */

const { $schema: _ignored, ...fileSchema } = z.toJSONSchema(fileOutput) as Record<string, unknown>;

const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const headerParam = (name: string, description: string) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } });

/** The image transformation parameters (docs/resources.md#image-transformations). */
const IMAGE_ONLY = 'Image files only (stored type image/jpeg, png, webp, avif, gif or tiff; 400 on any other file).';
const imageParam = (name: string, description: string, schema: Record<string, unknown>) => ({ name, in: 'query', required: false, description, schema });
const imageParams = [
  imageParam('w', `Width in pixels. With \`h\` too, the box that \`fit\` fills; alone, the height follows the aspect ratio. ${IMAGE_ONLY} Images are never scaled up: a box larger than the original shrinks to the original's resolution, keeping its shape.`, { type: 'integer', minimum: 1, maximum: MAX_DIMENSION }),
  imageParam('h', `Height in pixels; as \`w\`. ${IMAGE_ONLY}`, { type: 'integer', minimum: 1, maximum: MAX_DIMENSION }),
  imageParam('fit', 'How the image fills `w` × `h` (only with both): `cover` (default; exactly that size, cropped around the centre), `contain` (the whole image, padded: transparent, or white in JPEG), `inside` (the whole image, at most that size).', { type: 'string', enum: [...FITS] }),
  imageParam('format', 'Output format. Default: the original\'s (GIF and TIFF become PNG).', { type: 'string', enum: [...OUTPUT_FORMATS] }),
  imageParam('q', `Quality of WebP, AVIF and JPEG output (PNG is lossless and ignores it). Default ${DEFAULT_QUALITY}.`, { type: 'integer', minimum: 1, maximum: 100 }),
];

export const multipart = (fileRequired: boolean) => ({
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
  ETag: header('"<sha256>"; a derived image: "<sha256>-<parameters>"'),
  'Content-Length': header('Bytes in this response'),
  'Cache-Control': header('private, no-cache'),
  'Content-Disposition': header('inline for images, audio, video, PDF and plain text; attachment otherwise'),
  'Accept-Ranges': header('bytes; none for a derived image'),
};

export const uploadOperation = {
  operationId: 'files-upload',
  tags: ['Files'],
  summary: 'Upload a file (multipart/form-data: file, name?); streamed, up to FILES_MAX_BYTES',
  security: [{ bearerAuth: [] }],
  parameters: [pathParam('projectId', 'Project id')],
  requestBody: { required: true, content: { 'multipart/form-data': multipart(true) } },
  responses: { '201': { description: 'Created; `Location` names the new file', content: fileJson } },
};

export const downloadOperation = {
  operationId: 'files-content',
  tags: ['Files'],
  summary: 'Download a file’s bytes (single byte ranges supported), or a transformed image (w, h, fit, format, q)',
  description:
    'Without transformation parameters: the stored bytes, with ranges. With any of `w`, `h`, `fit`, `format`, `q` (image files only): ' +
    'the derived image, computed on the first request and then served from storage; always whole (200, `Accept-Ranges: none`), ' +
    '`ETag: "<sha256>-<parameters>"`, `Cache-Control: private, no-cache`.',
  security: [{ bearerAuth: [] }],
  parameters: [
    pathParam('projectId', 'Project id'),
    pathParam('fileId', 'File id'),
    ...imageParams,
    headerParam('Range', 'bytes=<start>-<end>, bytes=<start>- or bytes=-<suffix length> (ignored with transformation parameters)'),
    headerParam('If-None-Match', 'The ETag of a cached copy: 304 when unchanged'),
    headerParam('If-Range', 'An ETag: the Range applies only while the file still has it'),
  ],
  responses: { '200': { description: 'The bytes, with the stored Content-Type; or the derived image, with its format’s', headers: downloadHeaders, content: bytes } },
};

const unprocessable = 'the image has 12000×10000 = 120000000 pixels, more than IMAGE_MAX_PIXELS (100000000)';

/** Statuses of the download besides 200 (buildOpenApiDocument keeps one success per operation). */
export const downloadResponses = {
  '400': errorResponse('400', {
    description: '`BAD_REQUEST`: a transformation parameter with a bad value, or on a file that is not an image; the message names the parameter',
    code: 'BAD_REQUEST',
    message: 'w must be an integer from 1 to 4096',
  }),
  '422': errorResponse('422', {
    description: '`VALIDATION_ERROR` (transformations): the file’s bytes cannot be transformed: more pixels than `IMAGE_MAX_PIXELS`, not a readable image, or damaged',
    message: unprocessable,
    details: [{ field: 'file', message: unprocessable }],
  }),
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
