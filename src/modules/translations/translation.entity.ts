import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const TranslationSchema = defineEntity({
  name: 'Translation',
  tableName: 'translation',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    key: p.string(),
    /** One of the project's locales (checked on write: 422). */
    locale: p.string(),
    value: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
  },
});
export type Translation = InferEntity<typeof TranslationSchema>;
