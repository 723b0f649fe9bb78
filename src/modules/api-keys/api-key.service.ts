import { ForeignKeyConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { API_KEY_PREFIX, DISPLAY_PREFIX_LENGTH, generateSecret, sha256 } from '../../shared/secrets.js';
import { findPage } from '../../db/find-page.js';
import { fieldInvalid, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { iso, isoOrNull } from '../../shared/schemas.js';
import type { PageParams } from '../../shared/pagination.js';
import { apiKeyRoleToGrant, unknownRole } from '../roles/role-grants.js';
import { ApiKeySchema, type ApiKey } from './api-key.entity.js';
import type { ApiKeyOutput, CreateApiKeyInput, UpdateApiKeyInput } from './api-key.schema.js';

/** The default grace of a rotation (docs/concepts.md#api-keys): an hour lets clients switch without downtime. */
export const DEFAULT_GRACE_SECONDS = 3600;

export const toApiKeyOutput = (k: ApiKey): ApiKeyOutput => ({
  id: k.id,
  name: k.name,
  permission: k.permission ?? null,
  roleId: k.roleId ?? null,
  allowedHosts: k.allowedHosts,
  active: k.active,
  expiresAt: isoOrNull(k.expiresAt),
  prefix: k.prefix,
  createdAt: iso(k.createdAt),
  lastUsedAt: isoOrNull(k.lastUsedAt),
});

function checkExpiry(expiresAt: string | null | undefined): Date | null | undefined {
  if (expiresAt === undefined || expiresAt === null) return expiresAt;
  const date = new Date(expiresAt);
  if (date.getTime() <= Date.now()) throw fieldInvalid('expiresAt', 'must be in the future');
  return date;
}

type Permission = NonNullable<ApiKey['permission']>;
/** What a key holds: a permission or a custom role, exactly one of them (docs/roles.md#granting-a-role). */
type KeyGrant = { permission: Permission; roleId: null } | { permission: null; roleId: string };

/**
 * The grant a create or update asks for, over the key's current one (none on create). A role id
 * is checked against the project's custom roles (422 on roleId); both, or neither, is 422.
 */
async function grantOf(
  em: EntityManager,
  projectId: string,
  input: { permission?: Permission | null; roleId?: string | null },
  current: { permission: Permission | null; roleId: string | null },
): Promise<KeyGrant> {
  if (input.permission != null && input.roleId != null) throw fieldInvalid('roleId', 'give either permission or roleId, not both');
  if (input.permission != null) return { permission: input.permission, roleId: null };
  if (input.roleId != null) return { permission: null, roleId: (await apiKeyRoleToGrant(em, projectId, input.roleId)).id };
  const permission = input.permission === null ? null : current.permission;
  const roleId = input.roleId === null ? null : current.roleId;
  if (permission !== null) return { permission, roleId: null };
  if (roleId !== null) return { permission: null, roleId };
  throw fieldInvalid('permission', 'a key needs a permission ("read" or "read_write") or a roleId');
}

/** Writes the key; a role deleted since it was checked fails the database's foreign key: 422 on roleId. */
async function flushKey(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException) throw unknownRole('roleId');
    throw error;
  }
}

export async function listApiKeys(em: EntityManager, projectId: string, params: PageParams) {
  const where = { project: projectId };
  return findPage(em, ApiKeySchema, where, params, { orderBy: { createdAt: 'asc', id: 'asc' } }, toApiKeyOutput);
}

/** Creates a key; the full value is in the result once and never stored (docs/concepts.md#api-keys). */
export async function createApiKey(em: EntityManager, projectId: string, input: CreateApiKeyInput) {
  const expiresAt = checkExpiry(input.expiresAt) ?? null;
  const grant = await grantOf(em, projectId, input, { permission: null, roleId: null });
  const key = generateSecret(API_KEY_PREFIX);
  const apiKey = em.create(ApiKeySchema, {
    project: projectId,
    name: input.name,
    ...grant,
    allowedHosts: [...new Set(input.allowedHosts ?? [])],
    active: input.active ?? true,
    expiresAt,
    keyHash: sha256(key),
    prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
  });
  await flushKey(em);
  return { ...toApiKeyOutput(apiKey), key };
}

export async function findApiKey(em: EntityManager, projectId: string, apiKeyId: string): Promise<ApiKey> {
  const apiKey = isUuid(apiKeyId) ? await em.findOne(ApiKeySchema, { id: apiKeyId, project: projectId }) : null;
  if (!apiKey) throw notFound('API key');
  return apiKey;
}

export async function updateApiKey(em: EntityManager, projectId: string, input: UpdateApiKeyInput): Promise<ApiKeyOutput> {
  const apiKey = await findApiKey(em, projectId, input.apiKeyId);
  const expiresAt = checkExpiry(input.expiresAt);
  const grant = await grantOf(em, projectId, input, { permission: apiKey.permission ?? null, roleId: apiKey.roleId ?? null });
  if (input.name !== undefined) apiKey.name = input.name;
  apiKey.permission = grant.permission;
  apiKey.roleId = grant.roleId;
  if (input.allowedHosts !== undefined) apiKey.allowedHosts = [...new Set(input.allowedHosts)];
  if (input.active !== undefined) apiKey.active = input.active;
  if (expiresAt !== undefined) apiKey.expiresAt = expiresAt;
  await flushKey(em);
  return toApiKeyOutput(apiKey);
}

export async function deleteApiKey(em: EntityManager, projectId: string, apiKeyId: string): Promise<void> {
  const apiKey = await findApiKey(em, projectId, apiKeyId);
  await em.remove(apiKey).flush();
}

/**
 * A new value for the same record. The old value keeps working for `graceSeconds` (docs/concepts.md#api-keys);
 * a value already in its grace period from an earlier rotation is dropped.
 */
export async function rotateApiKey(em: EntityManager, projectId: string, apiKeyId: string, graceSeconds = DEFAULT_GRACE_SECONDS) {
  const apiKey = await findApiKey(em, projectId, apiKeyId);
  const key = generateSecret(API_KEY_PREFIX);
  apiKey.previousKeyHash = graceSeconds > 0 ? apiKey.keyHash : null;
  apiKey.previousExpiresAt = graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null;
  apiKey.keyHash = sha256(key);
  apiKey.prefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
  await em.flush();
  return { ...toApiKeyOutput(apiKey), key };
}
