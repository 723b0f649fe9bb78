import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { buildWorld, columnsPath, contentsPath, createTable, expectValidation, type World } from '../contents/fixture.js';
import { VariableSchema } from '../../src/modules/variables/variable.entity.js';
import { callWithin, expectHandled, snapshot } from './fixture.js';

/** Focused regressions for faults the hostile tests found (see each test for the failing input). */

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(() => t?.close());

describe('column patterns with catastrophic backtracking', () => {
  // Before: POST {"data":{"code":"aaaa…a!"}} against pattern (a+)+ blocked the whole process for
  // minutes (2^40 steps); every other request waited behind it.
  it('a value that makes the pattern backtrack is refused (422) at once, and the server keeps answering', async () => {
    const table = await createTable(w, [{ name: 'code', type: 'text', settings: { pattern: '(a+)+' } }, { name: 'word', type: 'text', settings: { pattern: '(\\w+\\s?)*' } }]);
    const before = await snapshot(t);
    const started = Date.now();
    const [evil, health] = await Promise.all([
      // Sizes that took seconds unfixed (longer ones take hours: the API runs in this process,
      // so a regression would then hang the test worker instead of failing).
      callWithin(t, 'POST', contentsPath(w, table.key), { body: { data: { code: `${'a'.repeat(27)}!`, word: `${'word '.repeat(8)}!` } } }, 60_000),
      // Sent together: it must not wait for the match.
      callWithin(t, 'GET', '/healthz', {}, 60_000),
    ]);
    expect(health.status).toBe(200);
    const error = expectValidation(evil, ['data.code', 'data.word']);
    expect(error.details![0].message).toContain('pattern');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await snapshot(t)).toEqual(before);
    // The pattern still works for ordinary values.
    expect((await callWithin(t, 'POST', contentsPath(w, table.key), { body: { data: { code: 'aaa', word: 'two words' } } })).status).toBe(201);
    expectValidation(await callWithin(t, 'POST', contentsPath(w, table.key), { body: { data: { code: 'b' } } }), ['data.code']);
  });

  it('a defaultValue is checked the same way (422 on settings.defaultValue, not a hang)', async () => {
    const table = await createTable(w);
    const started = Date.now();
    const res = await callWithin(t, 'POST', columnsPath(w, table.key), {
      body: { name: 'code', type: 'text', settings: { pattern: '(a|a)*', defaultValue: `${'a'.repeat(27)}!` } },
    }, 60_000);
    expectValidation(res, ['settings.defaultValue']);
    expect(res.json.error.details[0].message).toContain('in time');
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('malformed percent-encoding in a path', () => {
  // Before: GET /v1/{projectId}/files/%E0%A4%A/content was a 500 (express's URIError).
  it('is a 4xx on every route, never a 500', async () => {
    for (const path of [
      `/v1/${w.projectId}/files/%E0%A4%A/content`,
      `/v1/${w.projectId}/files/%ZZ`,
      `/v1/%E0%A4%A/files`,
      `/v1/${w.projectId}/tables/%E0%A4%A`,
      `/v1/workspaces/%`,
    ]) {
      for (const method of ['GET', 'PUT', 'POST']) {
        const res = await callWithin(t, method, path, method === 'GET' ? {} : { body: {} });
        expectHandled(res, `${method} ${path}`);
      }
    }
    expectError(await callWithin(t, 'GET', `/v1/${w.projectId}/files/%E0%A4%A/content`), 400, 'BAD_REQUEST');
    // /trpc keeps tRPC's envelope, with the error body under data.error.
    const trpc = await callWithin(t, 'GET', '/trpc/%E0%A4%A');
    expect({ status: trpc.status, code: trpc.json.error.data.error.code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
  });
});

describe('an unknown member with a malformed body (404 before 400)', () => {
  // Found by the isolation matrix: PUT /v1/workspaces/{B}/members/{a member of A} with {} was
  // 400 "role: Invalid option" instead of 404; the body was checked before the member.
  it('is 404 for workspace and project members; a known member with that body is 400', async () => {
    const missing = '0190b0a0-0000-7000-8000-00000000beef';
    const ws = w.workspaceId;
    const members = `/v1/workspaces/${ws}/members`;
    const projectMembers = `/v1/workspaces/${ws}/projects/${w.projectId}/members`;
    for (const body of [{}, { role: 'KING' }, { role: 5 }]) {
      expectError(await callWithin(t, 'PUT', `${members}/${missing}`, { body }), 404, 'NOT_FOUND');
      expectError(await callWithin(t, 'PUT', `${members}/not-a-uuid`, { body }), 404, 'NOT_FOUND');
      expectError(await callWithin(t, 'PUT', `${projectMembers}/${missing}`, { body }), 404, 'NOT_FOUND');
    }
    const invited = await callWithin(t, 'POST', members, { body: { email: `m-${Date.now()}@example.com`, role: 'MEMBER' } });
    expect(invited.status, invited.text).toBe(201);
    const added = await callWithin(t, 'POST', projectMembers, { body: { accountId: invited.json.accountId, role: 'VIEWER' } });
    expect(added.status, added.text).toBe(201);
    expectError(await callWithin(t, 'PUT', `${members}/${invited.json.id}`, { body: { role: 'KING' } }), 400, 'BAD_REQUEST');
    expectError(await callWithin(t, 'PUT', `${projectMembers}/${added.json.id}`, { body: { role: 'KING' } }), 400, 'BAD_REQUEST');
  });
});

describe('shutdown after a connection the database dropped', () => {
  // Before: after a protocol error on two concurrent queries (what a NUL in a query parameter
  // caused), orm.close() never resolved, so SIGTERM never ended the process.
  it('close() finishes within its bounds', async () => {
    const own = await startTestApi();
    try {
      const em = own.api.deps.orm.em.fork();
      const failures = await Promise.allSettled([em.count(VariableSchema, { key: 'a\u0000' }), em.find(VariableSchema, { key: 'a\u0000' })]);
      expect(failures.map((f) => f.status)).toEqual(['rejected', 'rejected']);
      const started = Date.now();
      await own.api.close(500, 1_000);
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      await own.db.drop();
    }
  });
});
