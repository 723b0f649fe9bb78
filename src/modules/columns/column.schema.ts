import { z } from 'zod';
import { isoDate, jsonObject, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { COLUMN_NAME, COLUMN_TYPES } from '../tables/table-def.js';

export const columnType = z.enum(COLUMN_TYPES);

/**
 * Settings arrive as a free-form object and are checked against the column type by
 * `checkSettings` (unknown or inapplicable settings are 400), because which settings apply
 * depends on the type.
 */
const settingsInput = jsonObject().describe(
  'required, unique, defaultValue (any type); minText, maxText, pattern, localized (text); minText, maxText, localized, format (plain or markdown) (longtext); ' +
    'min, max (number, integer); options (required), multiple (select); source (slug); table (required), multiple, onDelete (setNull, the default when absent; restrict; cascade) (reference); multiple (file); localized (url)',
);

export const columnOutput = z.object({
  id: z.uuid(),
  name: z.string(),
  label: z.string(),
  type: columnType,
  settings: z.record(z.string(), z.unknown()),
  position: z.number().int(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type ColumnOutput = z.infer<typeof columnOutput>;

const tablePath = { projectId: pathId('Project id'), tableId: pathId('Table id or key') };
const columnPath = { ...tablePath, columnId: pathId('Column id or name') };
const columnName = z.string().regex(COLUMN_NAME, 'must match ^[A-Za-z][A-Za-z0-9_]{0,62}$');

export const listColumnsInput = z.object({ ...tablePath, ...pageParams });
export const columnListOutput = listOf(columnOutput);
export const createColumnInput = z.object({
  ...tablePath,
  name: columnName,
  label: z.string().max(200).optional(),
  type: columnType,
  settings: settingsInput.optional(),
});
export type CreateColumnInput = z.infer<typeof createColumnInput>;
export const updateColumnInput = z.object({
  ...columnPath,
  name: columnName.optional(),
  label: z.string().max(200).optional(),
  type: columnType.optional(),
  settings: settingsInput.optional().describe('Merged key by key; a key set to null removes that setting'),
  position: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Moves the column to this place (1 = first) among the table\'s columns; the others shift; past the end = last'),
});
export type UpdateColumnInput = z.infer<typeof updateColumnInput>;
export const columnIdInput = z.object(columnPath);
