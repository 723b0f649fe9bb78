import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const VariableSchema = defineEntity({
  name: 'Variable',
  tableName: 'variable',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    key: p.string(),
    /** Any JSON value; a JSON `null` is stored as SQL NULL. */
    value: p.json<unknown>().nullable(),
    description: p.text().default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
  },
});
export type Variable = InferEntity<typeof VariableSchema>;
