import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { expect } from 'vitest';
import type { CallOptions, CallResult, TestApi } from '../helpers/api.js';

/**
 * Two projects in two workspaces, one of every resource in project A, and a credential of every
 * kind docs/concepts.md#credentials-and-roles distinguishes. `fillPath` puts A's real ids into any documented path, and fails
 * loudly on a parameter it does not know, so that a new endpoint forces this file to grow.
 */

export interface Credentials {
  /** Account tokens. */
  ownerA: string;
  viewerA: string;
  editorA: string;
  /** Owner of workspace B, member of nothing in A. */
  ownerB: string;
  /** API keys. */
  readKeyA: string;
  writeKeyA: string;
  inactiveKeyA: string;
  writeKeyB: string;
}

export interface HostileWorld {
  workspaceA: string;
  projectA: string;
  workspaceB: string;
  projectB: string;
  /** A's resources by path parameter (`memberId` is the workspace member's; see fillPath). */
  ids: Record<string, string>;
  /** B's resources by path parameter, for the cross-project id checks. */
  idsB: Record<string, string>;
  creds: Credentials;
}

const ok = (res: CallResult, status = 201) => {
  expect(res.status, res.text).toBe(status);
  return res.json;
};

async function invite(t: TestApi, workspaceId: string, token?: string): Promise<{ token: string; accountId: string; memberId: string }> {
  const res = ok(await t.call('POST', `/v1/workspaces/${workspaceId}/members`, { token, body: { email: `${randomUUID()}@example.com`, role: 'MEMBER' } }));
  return { token: res.accessToken, accountId: res.accountId, memberId: res.id };
}

/** One of each resource in a fresh project of a fresh workspace, owned by `token`. */
async function populate(t: TestApi, token: string, name: string) {
  const as: CallOptions = { token };
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { ...as, body });
  const workspaceId = ok(await call('POST', '/v1/workspaces', { name })).id as string;
  const projectId = ok(await call('POST', `/v1/workspaces/${workspaceId}/projects`, { name, locales: ['en', 'fr'] })).id as string;
  const p = `/v1/${projectId}`;
  const table = ok(await call('POST', `${p}/tables`, { key: 'articles', name: 'Articles' }));
  const column = ok(await call('POST', `${p}/tables/${table.id}/columns`, { name: 'title', type: 'text' }));
  const contents = ok(await call('POST', `${p}/tables/${table.id}/contents`, { data: { title: 'Hello' } }));
  const category = ok(await call('POST', `${p}/categories`, { name: 'News' }));
  const variable = ok(await call('POST', `${p}/variables`, { key: 'site.name', value: 'A' }));
  const translation = ok(await call('POST', `${p}/translations`, { key: 'hello', locale: 'fr', value: 'Bonjour' }));
  const multipart = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n';
  const file = ok(await t.call('POST', `${p}/files`, { ...as, raw: multipart, headers: { 'content-type': 'multipart/form-data; boundary=b' } }));
  const apiKey = ok(await call('POST', `${p}/api-keys`, { name: 'in the path', permission: 'read' }));
  const webhook = ok(await call('POST', `${p}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['*'] }));
  const role = ok(await call('POST', `${p}/roles`, { name: 'in the path', rules: [{ table: 'articles', actions: ['read'] }] }));
  const release = ok(await call('POST', `${p}/releases`, { name: 'in the path' }));
  const item = ok(await call('POST', `${p}/releases/${release.id}/items`, { tableId: table.id, contentsId: contents.id, action: 'unpublish' }));
  const member = await invite(t, workspaceId, token);
  const projectMember = ok(await call('POST', `/v1/workspaces/${workspaceId}/projects/${projectId}/members`, { accountId: member.accountId, role: 'VIEWER' }));
  // A delivery attempt needs the workers; its two rows are written directly instead.
  const deliveryId = randomUUID();
  const db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
  try {
    const eventId = randomUUID();
    await db.query(`insert into webhook_event (webhook_id, event_id, type, body, state, attempts) values ($1, $2, 'contents.created', '{}', 'exhausted', 1)`, [webhook.id, eventId]);
    await db.query(`insert into webhook_delivery (id, webhook_id, event_id, type, attempt, status_code, duration_ms, error, created_at) values ($1, $2, $3, 'contents.created', 1, null, 5, 'refused', now())`, [deliveryId, webhook.id, eventId]);
  } finally {
    await db.end();
  }
  const ids: Record<string, string> = {
    workspaceId,
    projectId,
    tableId: table.id,
    columnId: column.id,
    contentsId: contents.id,
    // The row's first revision (every row has one).
    version: '1',
    categoryId: category.id,
    variableId: variable.id,
    translationId: translation.id,
    fileId: file.id,
    apiKeyId: apiKey.id,
    webhookId: webhook.id,
    roleId: role.id,
    releaseId: release.id,
    itemId: item.id,
    deliveryId,
    memberId: member.memberId,
    projectMemberId: projectMember.id,
  };
  return ids;
}

export async function buildHostileWorld(t: TestApi): Promise<HostileWorld> {
  const ids = await populate(t, t.adminToken, 'A');
  const { workspaceId: workspaceA, projectId: projectA } = ids;
  const p = `/v1/${projectA}`;
  const key = async (permission: string, extra: Record<string, unknown> = {}) =>
    ok(await t.call('POST', `${p}/api-keys`, { body: { name: permission, permission, ...extra } })) as { id: string; key: string };
  const member = async (role: string) => {
    const who = await invite(t, workspaceA);
    ok(await t.call('POST', `/v1/workspaces/${workspaceA}/projects/${projectA}/members`, { body: { accountId: who.accountId, role } }));
    return who.token;
  };
  const inactive = await key('read_write');
  ok(await t.call('PUT', `${p}/api-keys/${inactive.id}`, { body: { active: false } }), 200);

  // Workspace B belongs to an account that has no role anywhere in workspace A.
  const ownerB = ok(await t.call('POST', `/v1/workspaces/${workspaceA}/members`, { body: { email: `${randomUUID()}@example.com`, role: 'MEMBER' } }));
  const idsB = await populate(t, ownerB.accessToken, 'B');
  ok(await t.call('DELETE', `/v1/workspaces/${workspaceA}/members/${ownerB.id}`), 204);
  const writeKeyB = ok(await t.call('POST', `/v1/${idsB.projectId}/api-keys`, { token: ownerB.accessToken, body: { name: 'b', permission: 'read_write' } }));

  return {
    workspaceA,
    projectA,
    workspaceB: idsB.workspaceId,
    projectB: idsB.projectId,
    ids,
    idsB,
    creds: {
      ownerA: t.adminToken,
      viewerA: await member('VIEWER'),
      editorA: await member('EDITOR'),
      ownerB: ownerB.accessToken,
      readKeyA: (await key('read')).key,
      writeKeyA: (await key('read_write')).key,
      inactiveKeyA: inactive.key,
      writeKeyB: writeKeyB.key,
    },
  };
}

/**
 * `path` (as documented, e.g. `/{projectId}/tables/{tableId}`) with every parameter replaced by
 * an id of `ids`. `{memberId}` names a project member under `/projects/{projectId}/members/`, a
 * workspace member elsewhere. An unknown parameter throws: extend `populate` for it.
 */
export function fillPath(path: string, ids: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const key = name === 'memberId' && path.includes('/projects/{projectId}/members/') ? 'projectMemberId' : name;
    const value = ids[key];
    if (!value) throw new Error(`No fixture id for path parameter {${name}} in ${path}: add that resource to test/hostile/world.ts`);
    return encodeURIComponent(value);
  });
}
