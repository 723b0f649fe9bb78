import { z } from 'zod';
import { isoDate, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';

/** A file's display name: the `name` part, else the uploaded file name. */
export const FILE_NAME_MAX = 255;
export const fileName = z.string().trim().min(1).max(FILE_NAME_MAX);

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
});
export type ListFilesInput = z.infer<typeof listFilesInput>;
export const fileListOutput = listOf(fileOutput);

export const fileIdInput = z.object(filePath);

/** JSON `PUT`: metadata only. A multipart `PUT` to the same path replaces the bytes. */
export const updateFileInput = z.object({ ...filePath, name: fileName.optional() });
export type UpdateFileInput = z.infer<typeof updateFileInput>;
