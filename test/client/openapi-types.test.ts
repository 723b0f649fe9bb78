import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

/**
 * The recipe of docs/clients.md for REST users: openapi-typescript generates types from the served
 * `/v1/openapi.json`, and openapi-fetch calls the API with them. The generated file and a small
 * usage are type-checked with the TypeScript compiler, then the same calls run against the API.
 */

const root = path.resolve(import.meta.dirname, '../..');
let t: TestApi;
let dir: string;
let projectId: string;

const USAGE = `
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './tabula.js';

export function restClient(baseUrl: string, token: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
  return {
    async createTable(projectId: string, key: string): Promise<string> {
      const { data, error, response } = await client.POST('/{projectId}/tables', { params: { path: { projectId } }, body: { key, name: key } });
      if (error) throw new Error(\`\${response.status} \${error.error.code}\`);
      return data.id;
    },
    async names(projectId: string, tableId: string): Promise<string[]> {
      const { data, error } = await client.GET('/{projectId}/tables/{tableId}/contents', {
        params: { path: { projectId, tableId }, query: { size: 10, sort: '[{"i":"name","o":"asc"}]' } },
      });
      if (error) throw new Error(error.error.code);
      return data.list.map((row) => String(row.data?.name));
    },
    async failure(projectId: string, tableId: string): Promise<{ status: number; code: string | undefined }> {
      const { error, response } = await client.GET('/{projectId}/tables/{tableId}', { params: { path: { projectId, tableId } } });
      return { status: response.status, code: error?.error.code };
    },
  };
}

// The types are real, not any: each call below must be refused by the compiler.
export function misuse(client: Client<paths>) {
  // @ts-expect-error an unknown path
  void client.GET('/no/such/path');
  // @ts-expect-error a required path parameter is missing
  void client.GET('/{projectId}/tables', { params: { path: {} } });
  // @ts-expect-error a table needs a key
  void client.POST('/{projectId}/tables', { params: { path: { projectId: 'p' } }, body: { name: 'x' } });
}
`;

/** What USAGE exports (its own types live in the generated file, which this file cannot import). */
interface RestUsage {
  restClient(baseUrl: string, token: string): {
    createTable(projectId: string, key: string): Promise<string>;
    names(projectId: string, tableId: string): Promise<string[]>;
    failure(projectId: string, tableId: string): Promise<{ status: number; code: string | undefined }>;
  };
}

function typeCheck(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2024.d.ts'],
    types: ['node'],
    typeRoots: [path.join(root, 'node_modules', '@types')],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

beforeAll(async () => {
  t = await startTestApi();
  const ws = await t.call('POST', '/v1/workspaces', { body: { name: 'REST' } });
  const project = await t.call('POST', `/v1/workspaces/${ws.json.id}/projects`, { body: { name: 'Site' } });
  projectId = project.json.id;
  // Inside the repository, so that the usage resolves openapi-fetch from its node_modules.
  await mkdir(path.join(root, '.data'), { recursive: true });
  dir = await mkdtemp(path.join(root, '.data', 'openapi-types-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('openapi-typescript + openapi-fetch on /v1/openapi.json', () => {
  it('generates types that describe the contents paths and type-check a typed client', { timeout: 60_000 }, async () => {
    const ast = await openapiTS(new URL(`${t.url}/v1/openapi.json`));
    const source = astToString(ast);
    expect(source).toContain('"/{projectId}/tables/{tableId}/contents": {');
    expect(source).toContain('"/{projectId}/tables/{tableId}/contents/{contentsId}": {');
    await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    await writeFile(path.join(dir, 'tabula.ts'), source);
    await writeFile(path.join(dir, 'usage.ts'), USAGE);
    expect(typeCheck([path.join(dir, 'usage.ts')])).toEqual([]);

    // The same checker refuses a misuse outside an expect-error line: the check has teeth.
    await writeFile(path.join(dir, 'misuse.ts'), `${USAGE.split('// The types are real')[0]}\nexport const n = async (c: Client<paths>): Promise<number> => (await c.GET('/{projectId}/tables', { params: { path: { projectId: 'p' } } })).data!.list[0].key;\n`);
    const problems = typeCheck([path.join(dir, 'misuse.ts')]);
    expect(problems.join('\n')).toMatch(/Type 'string' is not assignable to type 'number'/);
  });

  it('the type-checked module runs against the API', async () => {
    // The very module that type-checked above, loaded from its generated file.
    const usage: RestUsage = await import(path.join(dir, 'usage.ts'));
    const rest = usage.restClient(`${t.url}/v1`, t.adminToken);
    expect(await rest.createTable(projectId, 'products')).toMatch(/^[0-9a-f-]{36}$/);
    await t.call('POST', `/v1/${projectId}/tables/products/columns`, { body: { name: 'name', type: 'text' } });
    for (const name of ['Mug', 'Lamp']) await t.call('POST', `/v1/${projectId}/tables/products/contents`, { body: { data: { name } } });
    expect(await rest.names(projectId, 'products')).toEqual(['Lamp', 'Mug']);
    expect(await rest.failure(projectId, 'nope')).toEqual({ status: 404, code: 'NOT_FOUND' });
  });
});
