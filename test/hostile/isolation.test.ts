import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { callWithin, snapshot } from './fixture.js';
import { buildHostileWorld, fillPath, type Credentials, type HostileWorld } from './world.js';

/**
 * The isolation matrix, generated from the served `/v1/openapi.json` so that a new endpoint is
 * covered the day it is documented: every operation, with A's real ids in its path, against
 * every credential that must not pass (docs/concepts.md#credentials-and-roles), and against project B's credentials with
 * A's ids under B's own project or workspace (404: another project's resources do not exist
 * there). Refused requests change nothing. GETs that must pass are checked to pass.
 */

type Who = keyof Credentials | 'none';
type Expected = 200 | 401 | 403 | 'allowed';
interface Operation {
  method: string;
  path: string;
}

/** Reads under `/workspaces/{workspaceId}` that need workspace OWNER or ADMIN (the metrics). */
const WORKSPACE_ADMIN_READS = new Set(['GET /workspaces/{workspaceId}/metrics']);

/** The table of docs/concepts.md#credentials-and-roles for one operation and one caller: the status, or 'allowed' for a write that may pass. */
function expectation(op: Operation, who: Who): Expected {
  if (who === 'none' || who === 'inactiveKeyA') return 401;
  const isKey = who === 'readKeyA' || who === 'writeKeyA' || who === 'writeKeyB';
  const read = op.method === 'GET';
  const pass: Expected = read ? 200 : 'allowed';
  if (op.path.startsWith('/accounts') || op.path === '/workspaces') return isKey ? 403 : pass;
  if (op.path.startsWith('/workspaces/{workspaceId}')) {
    if (isKey || who === 'ownerB') return 403;
    if (who === 'ownerA') return pass;
    // viewerA and editorA are workspace MEMBERs: they read, they administer nothing.
    return read && !WORKSPACE_ADMIN_READS.has(`${op.method} ${op.path}`) ? 200 : 403;
  }
  if (!op.path.startsWith('/{projectId}')) throw new Error(`No isolation rule for ${op.method} ${op.path}: extend isolation.test.ts`);
  if (who === 'writeKeyB' || who === 'ownerB') return 403;
  // Schema as code is project ADMIN only, reads included (docs/environments.md).
  const admin = /^\/\{projectId\}\/(api-keys|webhooks|roles|schema)(\/|$)/.test(op.path);
  const schema = !read && /^\/\{projectId\}\/tables(\/\{tableId\}(\/columns(\/\{columnId\})?)?)?$/.test(op.path);
  // Revisions and request logs are read by members and read_write keys, not by read keys.
  const notForReadKeys = read && (/\/revisions(\/|$)/.test(op.path) || /^\/\{projectId\}\/logs$/.test(op.path));
  // Releases publish: EDITOR+ and read_write keys, reads included (docs/releases.md).
  const releases = /^\/\{projectId\}\/releases(\/|$)/.test(op.path);
  const level = admin ? 'admin' : notForReadKeys ? 'notForReadKeys' : releases ? 'write' : read ? 'read' : schema ? 'schema' : 'write';
  const allowedBy: Record<string, Who[]> = {
    admin: ['ownerA'],
    notForReadKeys: ['ownerA', 'viewerA', 'editorA', 'writeKeyA'],
    read: ['ownerA', 'viewerA', 'editorA', 'readKeyA', 'writeKeyA'],
    write: ['ownerA', 'editorA', 'writeKeyA'],
    schema: ['ownerA', 'writeKeyA'],
  };
  return allowedBy[level].includes(who) ? pass : 403;
}

const CODES: Record<number, string> = { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' };

let t: TestApi;
let world: HostileWorld;
let operations: Operation[];

beforeAll(async () => {
  t = await startTestApi({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
  world = await buildHostileWorld(t);
  const doc = (await callWithin(t, 'GET', '/v1/openapi.json', { token: null })).json as { paths: Record<string, Record<string, unknown>> };
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
});
afterAll(() => t?.close());

/** The query parameters an operation cannot be answered without (a 400 would hide the access decision). */
const REQUIRED_QUERY: Record<string, (ids: HostileWorld['ids']) => string> = {
  'GET /{projectId}/access/explain': (ids) => `?table=${ids.tableId}`,
};

const send = (op: Operation, path: string, token: string | null): Promise<CallResult> =>
  callWithin(t, op.method, `/v1${path}`, { token, ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { body: {} }) });

describe('isolation matrix (from /v1/openapi.json)', () => {
  it('every documented path parameter has a fixture id (a new one fails here first)', () => {
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) expect(() => fillPath(op.path, world.ids), `${op.method} ${op.path}`).not.toThrow();
  });

  it('fillPath refuses a parameter it does not know', () => {
    expect(() => fillPath('/{projectId}/gadgets/{gadgetId}', world.ids)).toThrow(/gadgetId.*world\.ts/);
  });

  it("no credential, a deactivated key, project B's key, a non-member account, a read key on writes, VIEWER/EDITOR without the role: 401/403, nothing changes", async () => {
    const before = await snapshot(t);
    const who: Who[] = ['none', 'inactiveKeyA', 'writeKeyB', 'ownerB', 'readKeyA', 'writeKeyA', 'viewerA', 'editorA'];
    const checked: string[] = [];
    for (const op of operations) {
      const path = fillPath(op.path, world.ids) + (REQUIRED_QUERY[`${op.method} ${op.path}`]?.(world.ids) ?? '');
      // The callers of one operation at once: they are independent, and the matrix is large.
      await Promise.all(
        who.map(async (caller) => {
          const expected = expectation(op, caller);
          if (expected === 'allowed') return; // a write that may pass is not run: it would change A
          const res = await send(op, path, caller === 'none' ? null : world.creds[caller]);
          const context = `${caller} ${op.method} ${op.path}`;
          if (expected === 200) expect(res.status, `${context}: ${res.text.slice(0, 200)}`).toBe(200);
          else expect(expectError(res, expected, CODES[expected]).message, context).toBeTruthy();
          checked.push(`${context} → ${expected}`);
        }),
      );
    }
    expect(await snapshot(t)).toEqual(before);
    // Every operation was tried with at least the six refused credentials.
    expect(checked.length).toBeGreaterThanOrEqual(operations.length * 6);
  });

  it("A's ids under B's own project or workspace, with B's credentials, are 404 (another project's resources do not exist there)", async () => {
    const before = await snapshot(t);
    let checked = 0;
    const wrong: string[] = [];
    for (const op of operations) {
      const workspaceScoped = op.path.startsWith('/workspaces/{workspaceId}');
      const scope = workspaceScoped ? 'workspaceId' : 'projectId';
      const children = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).filter((name) => name !== scope);
      if (!op.path.startsWith(`/{${scope}}`) && !workspaceScoped) continue;
      if (children.length === 0) continue;
      const path = fillPath(op.path, { ...world.ids, [scope]: world.idsB[scope] });
      const callers: (keyof Credentials)[] = ['ownerB'];
      // B's key reaches what keys may reach in B: project data, not admin or account endpoints.
      if (!workspaceScoped && !/^\/\{projectId\}\/(api-keys|webhooks|roles)/.test(op.path)) callers.push('writeKeyB');
      for (const caller of callers) {
        const res = await send(op, path, world.creds[caller]);
        if (res.status === 404) expectError(res, 404, 'NOT_FOUND');
        else wrong.push(`${caller} ${op.method} ${op.path}: ${res.status} ${res.text.slice(0, 160)}`);
        checked++;
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot(t)).toEqual(before);
    expect(checked).toBeGreaterThan(30);
  });

  it("lists read with B's credentials never show A's resources", async () => {
    const aIds = new Set(Object.values(world.ids));
    for (const op of operations.filter((o) => o.method === 'GET' && !o.path.endsWith('}') && !o.path.endsWith('/content'))) {
      const scoped = op.path.startsWith('/{projectId}') || op.path.startsWith('/workspaces/{workspaceId}');
      const callers: (keyof Credentials)[] = scoped && op.path.startsWith('/{projectId}') && !/api-keys|webhooks|roles/.test(op.path) ? ['ownerB', 'writeKeyB'] : ['ownerB'];
      for (const caller of callers) {
        let path: string;
        try {
          path = fillPath(op.path, world.idsB);
        } catch {
          continue; // B's fixture has the same parameters as A's; fillPath already proved A's
        }
        const res = await send(op, path, world.creds[caller]);
        if (res.status !== 200) continue;
        for (const item of res.json?.list ?? []) expect(aIds.has(item.id), `${caller} ${op.path} lists A's ${item.id}`).toBe(false);
      }
    }
  });
});
