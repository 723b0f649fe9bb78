import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { TableSchema } from '../tables/table.entity.js';
import { COLUMN_TYPES, type ColumnSettings } from '../tables/table-def.js';
import { createdAtOf } from '../../db/timestamps.js';

export const ColumnSchema = defineEntity({
  name: 'ContentColumn',
  tableName: 'content_column',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    table: () => p.manyToOne(TableSchema).deleteRule('cascade'),
    name: p.string(),
    label: p.string().default(''),
    type: p.enum(COLUMN_TYPES),
    settings: p.json<ColumnSettings>(),
    position: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
    /** Set on delete; the purge job then removes the values and the row. */
    deletedAt: p.datetime().nullable(),
  },
});
export type ContentColumn = InferEntity<typeof ColumnSchema>;
