import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { createdAtOf } from '../../db/timestamps.js';
import type { Rule } from './role.schema.js';

/** A custom role of a project (docs/roles.md); the built-in ones are not stored (built-in-roles.ts). */
export const RoleSchema = defineEntity({
  name: 'Role',
  tableName: 'role',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    name: p.string(),
    description: p.text().default(''),
    /** The rules as validated (role-rules.ts), in the order given. */
    rules: p.json<Rule[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
  },
});
export type Role = InferEntity<typeof RoleSchema>;
