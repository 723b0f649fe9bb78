import { z } from 'zod';
import { isoDate, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { cleanFileName, FILE_NAME_MAX } from './file-name.js';

export { FILE_NAME_MAX } from './file-name.js';

/** What a name that cleans to nothing is told (see cleanFileName). */
export const NO_NAME_LEFT = 'must be a file name (nothing is left once the path and control characters are removed)';

/**
 * A file's display name given in JSON (a rename): cleaned like an uploaded one (file-name.ts),
 * then 1 to FILE_NAME_MAX characters.
 */
export const fileName = z
  .string()
  .transform(cleanFileName)
  .pipe(z.string().min(1, NO_NAME_LEFT).max(FILE_NAME_MAX))
  .describe('Display name; reduced to its last path component, without control characters');

export const fileOutput = z.object({
  id: z.uuid(),
  name: z.string(),
  mimeType: z.string(),
  size: z.number().int().describe('Bytes'),
  sha256: z.string().describe('Lower-case hex SHA-256 of the bytes'),
  url: z.string().describe('Path of the bytes: GET it with the same credentials'),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type FileOutput = z.infer<typeof fileOutput>;

const projectPath = { projectId: pathId('Project id') };
const filePath = { ...projectPath, fileId: pathId('File id') };

export const listFilesInput = z.object({
  ...projectPath,
  ...pageParams,
  mimeType: z.string().max(255).optional().describe('Only this type (`image/png`), or a whole family (`image/*`)'),
  search: z.string().max(255).optional().describe('Only files whose name contains this text (any case)'),
  sort: z.enum(['createdAt', '-createdAt']).optional().describe('createdAt (default): oldest first; -createdAt: newest first'),
});
export type ListFilesInput = z.infer<typeof listFilesInput>;
export const fileListOutput = listOf(fileOutput);

export const fileIdInput = z.object(filePath);

/** JSON `PUT`: metadata only. A multipart `PUT` to the same path replaces the bytes. */
export const updateFileInput = z.object({ ...filePath, name: fileName.optional() });
export type UpdateFileInput = z.infer<typeof updateFileInput>;

/** Most rows `used-by` lists. */
export const USED_BY_MAX = 100;

export const fileUsedByOutput = z.object({
  list: z
    .array(
      z.object({
        tableId: z.uuid(),
        id: z.uuid().describe('The row'),
        slug: z.string().nullable(),
        status: z.string(),
      }),
    )
    .describe(`The rows the caller reads that hold the file in a column it reads, newest change first, at most ${USED_BY_MAX}`),
  hasMore: z.boolean().describe(`More than ${USED_BY_MAX} rows hold it`),
});
