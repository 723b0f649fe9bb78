import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const CONTENT_STATUSES = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];
export interface TableSettings {
  display?: string;
}

export const TableSchema = defineEntity({
  name: 'ContentTable',
  tableName: 'content_table',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    key: p.string(),
    name: p.string(),
    description: p.text().default(''),
    defaultStatus: p.enum(CONTENT_STATUSES).default('PUBLISHED'),
    /** docs/contents.md#tables-and-columns: `display`, the label of a row in pickers and lists. */
    settings: p.json<TableSettings>().onCreate(() => ({})),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  },
});
export type ContentTable = InferEntity<typeof TableSchema>;
