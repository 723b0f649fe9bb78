import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { createdAtOf } from '../../db/timestamps.js';

export const AccountSchema = defineEntity({
  name: 'Account',
  tableName: 'account',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    email: p.string(),
    name: p.string().default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
  },
});
export type Account = InferEntity<typeof AccountSchema>;

/** A person's bearer credential; only its SHA-256 is stored (docs/concepts.md#api-keys). */
export const AccountTokenSchema = defineEntity({
  name: 'AccountToken',
  tableName: 'account_token',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    tokenHash: p.type('blob').columnType('bytea'),
    prefix: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type AccountToken = InferEntity<typeof AccountTokenSchema>;
