import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { ProjectSchema } from '../projects/project.entity.js';

export const CategorySchema = defineEntity({
  name: 'Category',
  tableName: 'category',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    name: p.string(),
    slug: p.string(),
    description: p.text().default(''),
    /** Another category of the same project (checked on write: 422). */
    parentId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Category = InferEntity<typeof CategorySchema>;
