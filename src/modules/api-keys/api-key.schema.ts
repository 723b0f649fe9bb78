import { z } from 'zod';
import { isoDate, jsonBoolean, nameString, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { API_KEY_PERMISSIONS } from './api-key.entity.js';

/** `app.example.com` or `*.example.com` (any subdomain). Stored lower-case. */
const hostRule = z
  .string()
  .regex(/^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, 'must be a host name such as app.example.com or *.example.com')
  .max(253)
  .transform((v) => v.toLowerCase());

export const permission = z.enum(API_KEY_PERMISSIONS).describe('read: GET only; read_write: everything a key may do');

/**
 * A key holds a built-in `permission` or a custom role (`roleId`), exactly one of the two
 * (docs/roles.md#granting-a-role); giving both, or neither on create, is 422 naming the field.
 */
const grantedPermission = permission
  .nullable()
  .describe('read: GET only; read_write: everything a key may do. Null when the key holds a custom role (roleId); give one of permission and roleId');
const roleId = z
  .string()
  .max(100)
  .nullable()
  .describe('The id of a custom role of the project (docs/roles.md), instead of a permission: the role\'s rules say what the key may do in the tables. Null when the key holds a permission');

export const apiKeyOutput = z.object({
  id: z.uuid(),
  name: z.string(),
  permission: grantedPermission,
  roleId,
  allowedHosts: z.array(z.string()),
  active: z.boolean(),
  expiresAt: isoDate.nullable(),
  prefix: z.string().describe('The first 12 characters of the key'),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable().describe('Updated at most once a minute'),
});
export type ApiKeyOutput = z.infer<typeof apiKeyOutput>;

export const apiKeyWithSecretOutput = apiKeyOutput.extend({
  key: z.string().describe('The full key (tak_…): shown only in this response'),
});

const projectPath = { projectId: pathId('Project id') };
const keyPath = { ...projectPath, apiKeyId: pathId('API key id') };

const expiresAt = z.iso.datetime({ offset: true }).describe('After this instant the key is refused (401)');

export const listApiKeysInput = z.object({ ...projectPath, ...pageParams });
export const apiKeyListOutput = listOf(apiKeyOutput);

export const createApiKeyInput = z.object({
  ...projectPath,
  name: nameString,
  permission: grantedPermission.optional(),
  roleId: roleId.optional(),
  allowedHosts: z.array(hostRule).max(100).optional(),
  active: jsonBoolean.optional(),
  expiresAt: expiresAt.optional(),
});
export type CreateApiKeyInput = z.infer<typeof createApiKeyInput>;

export const updateApiKeyInput = z.object({
  ...keyPath,
  name: nameString.optional(),
  permission: grantedPermission.optional().describe('Switches the key to this permission (its role, if any, is revoked)'),
  roleId: roleId.optional().describe('Switches the key to this custom role of the project (its permission is dropped)'),
  allowedHosts: z.array(hostRule).max(100).optional(),
  active: jsonBoolean.optional(),
  expiresAt: expiresAt.nullable().optional(),
});
export type UpdateApiKeyInput = z.infer<typeof updateApiKeyInput>;

export const apiKeyIdInput = z.object(keyPath);

/** A body number that trpc-to-openapi cannot coerce from a string (see shared/schemas). */
const graceSeconds = z.number().int().min(0).max(86_400).pipe(z.number());

export const rotateApiKeyInput = z.object({
  ...keyPath,
  graceSeconds: graceSeconds.optional().describe('How long the old value keeps working, 0..86400 s (default 3600)'),
});
