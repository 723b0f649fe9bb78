import { z } from 'zod';
import { isoDate, nameString, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { CONTENT_STATUSES } from './table.entity.js';

export const TABLE_KEY = /^[a-z][a-z0-9_]{0,62}$/;
export const contentStatus = z.enum(CONTENT_STATUSES);

export const tableOutput = z.object({
  id: z.uuid(),
  key: z.string(),
  name: z.string(),
  description: z.string(),
  defaultStatus: contentStatus,
  settings: z
    .object({ display: z.string().optional().describe('The column name or {{column}} template that labels a row in pickers and lists') })
    .describe('Table settings (docs/contents.md#tables-and-columns)'),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type TableOutput = z.infer<typeof tableOutput>;

export const projectPath = { projectId: pathId('Project id') };
export const tablePath = { ...projectPath, tableId: pathId('Table id or key') };

const tableKey = z.string().regex(TABLE_KEY, 'must match ^[a-z][a-z0-9_]{0,62}$');

export const listTablesInput = z.object({ ...projectPath, ...pageParams });
export const tableListOutput = listOf(tableOutput);
export const createTableInput = z.object({
  ...projectPath,
  key: tableKey,
  name: nameString,
  description: z.string().max(10_000).optional(),
  defaultStatus: contentStatus.optional().describe('Status of new rows that name none (default PUBLISHED)'),
});
export type CreateTableInput = z.infer<typeof createTableInput>;
export const updateTableInput = z.object({
  ...tablePath,
  key: tableKey.optional(),
  name: nameString.optional(),
  description: z.string().max(10_000).optional(),
  defaultStatus: contentStatus.optional(),
  settings: z
    .strictObject({
      display: z
        .string()
        .min(1)
        .max(500)
        .nullable()
        .optional()
        .describe('A column name (`title`) or a template of {{column}} placeholders (`{{title}} ({{sku}})`); null removes it; unknown columns are 422'),
    })
    .optional()
    .describe('Merged key by key; a key set to null removes that setting'),
});
export type UpdateTableInput = z.infer<typeof updateTableInput>;
export const tableIdInput = z.object(tablePath);
