import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { STORAGE_DRIVERS } from '../../storage/storage.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const FileSchema = defineEntity({
  name: 'File',
  tableName: 'file',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    name: p.string(),
    mimeType: p.string(),
    size: p.bigint('number'),
    /** Lower-case hex SHA-256 of the bytes (also the download's ETag). */
    sha256: p.string(),
    /** The driver that holds the bytes, and its key for them. */
    storageDriver: p.enum(STORAGE_DRIVERS),
    storageKey: p.string(),
    /**
     * The project under whose name the driver stored the bytes: this file's own, or for a copy
     * (docs/concepts.md#copying-a-project) the project whose file's bytes it shares.
     */
    storageProjectId: p.uuid(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
  },
});
export type FileRecord = InferEntity<typeof FileSchema>;
