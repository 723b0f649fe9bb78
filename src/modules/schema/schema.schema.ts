import { z } from 'zod';
import { jsonBoolean, jsonObject, nameString, pathId } from '../../shared/schemas.js';
import { columnType } from '../columns/column.schema.js';
import { rule } from '../roles/role.schema.js';
import { contentStatus } from '../tables/table.schema.js';

/**
 * Schema as code (docs/environments.md): a project's tables, columns and custom roles as one
 * id-free document. Shapes only; what a snapshot means against a project is checked by
 * snapshot-rules.ts (422) and, while applying, by the tables, columns and roles services.
 */

export const SNAPSHOT_FORMAT = 1;

export const snapshotColumn = z.object({
  name: z.string().describe('Unique within its table'),
  label: z.string(),
  type: columnType,
  settings: jsonObject().describe('As on the columns endpoints; a reference column names its table by key'),
  renamedFrom: z.string().optional().describe('Apply only: the current name of the column this one renames (its values are kept)'),
});
export type SnapshotColumn = z.infer<typeof snapshotColumn>;

/** As on the tables endpoints; omitted from a pull when empty (a snapshot given may hold `{}`). */
export const snapshotTableSettings = z
  .strictObject({
    display: z.string().min(1).max(500).optional().describe('A column name or a template of {{column}} placeholders naming columns of this table'),
  })
  .describe('The table settings (docs/contents.md#tables-and-columns); left out when there are none');
export type SnapshotTableSettings = z.infer<typeof snapshotTableSettings>;

export const snapshotTable = z.object({
  key: z.string().describe('Unique within the snapshot'),
  name: nameString,
  description: z.string().max(10_000),
  defaultStatus: contentStatus,
  settings: snapshotTableSettings.optional(),
  columns: z.array(snapshotColumn).max(1000).describe('In position order'),
});
export type SnapshotTable = z.infer<typeof snapshotTable>;

export const snapshotRole = z.object({
  name: nameString,
  description: z.string().max(10_000),
  rules: z.array(rule),
});
export type SnapshotRole = z.infer<typeof snapshotRole>;

export const snapshot = z.object({
  format: z.literal(SNAPSHOT_FORMAT).describe('1'),
  locales: z.array(z.string()),
  defaultLocale: z.string(),
  tables: z.array(snapshotTable).max(1000).describe('Ordered by key'),
  roles: z.array(snapshotRole).max(1000).describe('The custom roles, ordered by name (the built-in ones are in every project)'),
});
export type Snapshot = z.infer<typeof snapshot>;

/** The output: settings as a record, so that the document shows them as an object. */
export const snapshotOutput = snapshot.extend({
  tables: z.array(snapshotTable.extend({ columns: z.array(snapshotColumn.omit({ renamedFrom: true }).extend({ settings: z.record(z.string(), z.unknown()) })) })),
});

export const CHANGE_OPS = ['createTable', 'updateTable', 'dropTable', 'addColumn', 'updateColumn', 'dropColumn', 'createRole', 'updateRole', 'dropRole'] as const;
export type ChangeOp = (typeof CHANGE_OPS)[number];

export const change = z.object({
  op: z.enum(CHANGE_OPS),
  table: z.string().optional().describe('The table key (table and column changes)'),
  column: z.string().optional().describe('The column name (column changes; a rename: the new name)'),
  role: z.string().optional().describe('The role name (role changes)'),
  from: z.record(z.string(), z.unknown()).optional().describe('What changes, as it is now'),
  to: z.record(z.string(), z.unknown()).optional().describe('What changes, as it will be'),
  destructive: z.boolean().describe('true when the change loses data: `rows` counts the rows concerned'),
  rows: z.number().int().optional(),
});
export type Change = z.infer<typeof change>;

export const planOutput = z.object({ changes: z.array(change) });
export type PlanOutput = z.infer<typeof planOutput>;

const projectPath = { projectId: pathId('Project id') };

export const pullSchemaInput = z.object(projectPath);
export const diffSchemaInput = z.object({ ...projectPath, snapshot });
export const applySchemaInput = z.object({
  ...projectPath,
  snapshot,
  allowDestructive: jsonBoolean.optional().describe('true: apply destructive changes too (else 409 naming them)'),
  dryRun: jsonBoolean.optional().describe('true: run every check and answer the plan; change nothing'),
});
export type ApplySchemaInput = z.infer<typeof applySchemaInput>;
