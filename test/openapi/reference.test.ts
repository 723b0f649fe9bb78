import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { describeProblems, lintOpenApi } from '../helpers/openapi-lint.js';
import { buildWorld, GHOST, type World } from '../contents/fixture.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { OPERATORS } from '../../src/modules/query/index.js';
import { listOf, pageParams } from '../../src/shared/pagination.js';
import { pathId } from '../../src/shared/schemas.js';
import { projectProcedure } from '../../src/trpc/procedures.js';
import { router } from '../../src/trpc/trpc.js';

/** `/v1/openapi.json`: valid, complete, and true to what the server answers. */

type Op = {
  operationId: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; description?: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> }>;
};
// The document is read as JSON; the assertions say what they expect of it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

/*
 * Warnings of the recommended ruleset that stay, and why:
 * - info-license: Tabula has not chosen a license (package.json is private, there is no
 *   LICENSE file); naming one in the API document would be inventing it.
 * - no-ambiguous-paths: the API has these paths: `/{projectId}/…` beside `/workspaces/…` and
 *   `/accounts/…`. The server resolves them unambiguously (literal prefixes are routed first,
 *   and a project id must be a UUID), which the rule cannot see from the path templates.
 */
const JUSTIFIED_WARNINGS = ['info-license', 'no-ambiguous-paths'];

const RESOURCE_GROUPS = [
  'Accounts', 'Workspaces', 'Workspace Members', 'Projects', 'Project Members', 'API Keys', 'Roles', 'Tables', 'Columns',
  'Contents', 'Categories', 'Variables', 'Translations', 'Files', 'Webhooks', 'Logs', 'Metrics',
];

function operations(doc: Doc): { method: string; path: string; op: Op }[] {
  const out: { method: string; path: string; op: Op }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Op>>)) {
    for (const [method, op] of Object.entries(item)) if (['get', 'post', 'put', 'delete', 'patch'].includes(method)) out.push({ method, path, op });
  }
  return out;
}

const fill = (path: string, values: Record<string, string> = {}) => path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? GHOST);

let t: TestApi;
let w: World;
let doc: Doc;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  const res = await t.call('GET', '/v1/openapi.json', { token: null });
  expect(res.status).toBe(200);
  doc = res.json;
});
afterAll(async () => t?.close());

describe('/v1/openapi.json', () => {
  it('lints with the recommended ruleset: no errors, only the justified warnings', async () => {
    const { errors, warnings } = await lintOpenApi(doc);
    expect(errors, describeProblems(errors)).toEqual([]);
    const unexpected = warnings.filter((p) => !JUSTIFIED_WARNINGS.includes(p.ruleId));
    expect(unexpected, describeProblems(unexpected)).toEqual([]);
  });

  it('gives every operation an operationId, a summary, one described resource group and bearerAuth', () => {
    const described = new Map((doc.tags as { name: string; description?: string }[]).map((tag) => [tag.name, tag.description]));
    expect([...described.keys()]).toEqual(expect.arrayContaining(RESOURCE_GROUPS));
    for (const name of described.keys()) expect(described.get(name), `tag ${name}`).toBeTruthy();
    const ids = new Set<string>();
    for (const { method, path, op } of operations(doc)) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[A-Za-z][\w-]*$/);
      expect(ids.has(op.operationId), `duplicate ${op.operationId}`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary?.length, where).toBeGreaterThan(5);
      expect(op.tags, where).toHaveLength(1);
      expect(described.has(op.tags![0]), where).toBe(true);
      expect(op.security, where).toEqual([{ bearerAuth: [] }]);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the errors each kind of operation can answer, with the error body', () => {
    for (const { method, path, op } of operations(doc)) {
      const statuses = Object.keys(op.responses);
      const where = `${method} ${path}: ${statuses.join(',')}`;
      expect(statuses, where).toEqual(expect.arrayContaining(['401', '403', '429', '500']));
      if (path.includes('{')) expect(statuses, where).toContain('404');
      if (['post', 'put'].includes(method)) expect(statuses, where).toEqual(expect.arrayContaining(['400', '413', '415']));
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.['application/json']?.schema?.$ref, `${where} ${status}`).toBe('#/components/schemas/Error');
        expect(response.content?.['application/json']?.example, `${where} ${status}`).toMatchObject({ error: { code: expect.any(String) } });
      }
      expect(op.responses['429'].headers, where).toHaveProperty('Retry-After');
    }
    const responses = (method: string, path: string) => Object.keys(doc.paths[path][method].responses);
    // No id in the path: no 404; no input at all: no 400.
    expect(responses('get', '/accounts/me')).not.toContain('404');
    expect(responses('get', '/accounts/me')).not.toContain('400');
    expect(responses('get', '/workspaces')).toEqual(expect.arrayContaining(['400']));
    // Unique keys and semantic rules of the group.
    expect(doc.paths['/{projectId}/tables'].post.responses['409'].description).toContain('key');
    expect(responses('post', '/{projectId}/tables/{tableId}/contents')).toEqual(expect.arrayContaining(['409', '422']));
    const update = doc.paths['/{projectId}/tables/{tableId}/contents/{contentsId}'].put.responses;
    expect(update['409'].description).toContain('INVALID_TRANSITION');
    expect(responses('delete', '/{projectId}/files/{fileId}')).toContain('409');
    expect(responses('get', '/{projectId}/tables')).not.toContain('409');
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message', 'details']);
  });

  it('documents true success statuses with their headers and examples', () => {
    for (const { method, path, op } of operations(doc)) {
      const where = `${method} ${path}`;
      const [success, response] = Object.entries(op.responses).find(([status]) => status.startsWith('2'))!;
      expect(response.headers, where).toHaveProperty('X-Request-Id');
      if (success === '201') expect(response.headers, where).toHaveProperty('Location');
      if (method === 'delete') expect(success, where).toBe('204');
      const json = response.content?.['application/json'];
      if (json) expect(json.example, `${where} response example`).toBeDefined();
      const body = op.requestBody?.content['application/json'];
      if (body) expect(body.example, `${where} request example`).toBeDefined();
    }
    expect(Object.keys(doc.paths['/{projectId}/tables'].post.responses)).toContain('201');
    expect(doc.paths['/{projectId}/files'].post.requestBody.content['multipart/form-data'].schema.required).toEqual(['file']);
  });

  it('documents the list parameters, with the JSON shapes of sort and filter and every operator', () => {
    const params = new Map(doc.paths['/{projectId}/tables/{tableId}/contents'].get.parameters.map((p: NonNullable<Op['parameters']>[number]) => [p.name, p]));
    for (const name of ['page', 'size', 'fields', 'sort', 'filter', 'op', 'cursor', 'locale', 'withCount']) {
      expect((params.get(name) as { description?: string })?.description, name).toBeTruthy();
    }
    const sort = params.get('sort') as { description: string; example: string };
    const filter = params.get('filter') as { description: string; example: string };
    expect(sort.description).toContain('{ "i": field, "o": "asc" | "desc", "l"?: locale }');
    expect(filter.description).toContain('{ "i": field, "w": operator, "v": value, "l"?: locale }');
    for (const operator of OPERATORS) expect(filter.description).toContain(`\`${operator}\``);
    expect(JSON.parse(sort.example)).toEqual([{ i: 'createdAt', o: 'desc' }]);
    expect(Array.isArray(JSON.parse(filter.example))).toBe(true);
  });

  it('answers every operation without a credential with a documented 401', async () => {
    for (const { method, path, op } of operations(doc)) {
      const res = await t.call(method.toUpperCase(), `/v1${fill(path)}`, { token: null, ...(method === 'get' || method === 'delete' ? {} : { body: {} }) });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(401);
      expect(op.responses).toHaveProperty('401');
    }
  });

  it('answers every operation whose path names something unknown with a documented 404', async () => {
    for (const { method, path, op } of operations(doc).filter((o) => o.path.includes('{'))) {
      const res = await t.call(method.toUpperCase(), `/v1${fill(path)}`, method === 'get' || method === 'delete' ? {} : { body: {} });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
      expect(op.responses).toHaveProperty('404');
    }
  });

  it('answers account-level operations with a documented 403 for API keys', async () => {
    const accountLevel = operations(doc).filter((o) => o.path.startsWith('/workspaces') || o.path.startsWith('/accounts'));
    expect(accountLevel.length).toBeGreaterThan(10);
    for (const { method, path, op } of accountLevel) {
      const res = await t.call(method.toUpperCase(), `/v1${fill(path)}`, { token: w.readKey, ...(method === 'get' || method === 'delete' ? {} : { body: {} }) });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      expect(op.responses).toHaveProperty('403');
    }
  });

  it('covers a router added later that gives only a summary and a tag', async () => {
    // The shape of the logs router another change adds: nothing but summary and tag in its meta.
    const later = router({
      logs: router({
        list: projectProcedure('read')
          .meta({ openapi: { method: 'GET', path: '/{projectId}/logs', tags: ['Logs'], summary: 'Request logs, newest first' } })
          .input(z.object({ projectId: pathId('Project id'), ...pageParams, status: z.number().int().optional().describe('Only this status') }))
          .output(listOf(z.object({ id: z.uuid(), status: z.number().int(), createdAt: z.string() })))
          .query(() => ({ list: [], pagination: { page: 1, size: 20, total: 0, pages: 0, hasNext: false } })),
      }),
    });
    const generated = buildOpenApiDocument(later) as Doc;
    const op = generated.paths['/{projectId}/logs'].get as Op;
    expect(op.operationId).toBe('logs-list');
    expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
    expect(op.parameters!.find((p) => p.name === 'status')?.description).toBe('Only this status');
    expect(op.responses['200'].content!['application/json'].example).toMatchObject({ list: [{ status: 1 }] });
    expect(generated.tags).toEqual([{ name: 'Logs', description: expect.stringContaining('request') }]);
    const { errors } = await lintOpenApi(generated);
    expect(errors, describeProblems(errors)).toEqual([]);
  });
});
