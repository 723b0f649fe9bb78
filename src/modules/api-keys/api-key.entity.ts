import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const API_KEY_PERMISSIONS = ['read', 'read_write'] as const;

export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    name: p.string(),
    /** Null when the key holds a custom role instead (`roleId`): exactly one of the two is set. */
    permission: p.enum(API_KEY_PERMISSIONS).nullable(),
    /**
     * A custom role of the project (docs/roles.md#granting-a-role). A plain column, as on project
     * members: the database's foreign key (role, project) keeps it in the project and refuses
     * deleting the role while granted.
     */
    roleId: p.uuid().nullable(),
    allowedHosts: p.array().columnType('text[]'),
    active: p.boolean().default(true),
    expiresAt: p.datetime().nullable(),
    keyHash: p.type('blob').columnType('bytea'),
    prefix: p.string(),
    previousKeyHash: p.type('blob').columnType('bytea').nullable(),
    previousExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKeySchema>;
