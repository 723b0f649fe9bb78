import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectStatus } from '../helpers/expect.js';
import { buildWorld, type World } from '../contents/fixture.js';
import { buildCatalog } from './project-fixture.js';

/** openapi-typescript turns a project's document into the types a client would use. */

let t: TestApi;
let w: World;
let types: string;
let dir: string;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  await buildCatalog(w);
  const doc = expectStatus(await t.call('GET', `/v1/${w.projectId}/openapi.json`, { token: w.readKey }), 200);
  types = astToString(await openapiTS(doc));
  // Inside the project, so that the checked program resolves openapi-fetch from node_modules.
  await mkdir('test-results', { recursive: true });
  dir = await mkdtemp(path.join(process.cwd(), 'test-results', 'types-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The body of one generated schema interface, e.g. `BlogPostsCreateData: { ... };` */
function block(name: string): string {
  const start = types.indexOf(`        ${name}: {`);
  expect(start, `schema ${name} in the generated types`).toBeGreaterThan(-1);
  const end = types.indexOf('\n        };', start);
  // Doc comments are dropped so that the fields read one per line.
  return types.slice(start, end).replace(/\/\*\*[\s\S]*?\*\//g, '').replace(/\s+/g, ' ');
}

/** Type-checks `source` against the generated types; returns the diagnostics' messages. */
async function typeCheck(source: string): Promise<string[]> {
  await writeFile(path.join(dir, 'project.ts'), types);
  await writeFile(path.join(dir, 'use.ts'), source);
  const program = ts.createProgram([path.join(dir, 'use.ts')], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('types generated from a project’s document', () => {
  it('has the tables’ operations and the columns with their TypeScript types', () => {
    expect(types).toContain('"/tables/blog_posts/contents": {');
    expect(types).toContain('"/tables/blog_posts/contents/{contentsId}": {');
    for (const op of ['listBlogPosts', 'createBlogPosts', 'getBlogPosts', 'updateBlogPosts', 'deleteBlogPosts', 'listAuthors']) {
      expect(types).toContain(`    ${op}: {`);
    }
    const read = block('BlogPostsData');
    expect(read).toContain('title: { en?: string; fr?: string; } | string | null;');
    expect(read).toContain('price?: number;');
    expect(read).toContain('stock: number;');
    expect(read).toContain('featured?: boolean;');
    expect(read).toContain('day?: string;');
    expect(read).toContain('color?: "red" | "green";');
    expect(read).toContain('topics?: ("news" | "tech")[];');
    expect(read).toContain('meta?: unknown;');
    // An id, or with `expand` the referenced row (typed by its table) or the File (docs/contents.md#expand).
    expect(read).toContain('author?: string | components["schemas"]["Authors"] | null;');
    expect(read).toContain('related?: (string | components["schemas"]["BlogPosts"])[];');
    expect(read).toMatch(/gallery\?: \(string \| \{ id: string; name\?: string; mimeType\?: string;[^}]*\}\)\[\];/);

    const create = block('BlogPostsCreateData');
    expect(create).toContain('title: { en: string; fr?: string | null; } | string;');
    expect(create).toContain('price?: number | null;');
    expect(create).toContain('stock?: number;');
    expect(create).toContain('color?: ("red" | "green") | null;');
    expect(create).not.toContain('[key: string]');
    expect(block('AuthorsData')).toContain('name: string;');
  });

  it('type-checks a client’s use of them, and refuses what the API would refuse', async () => {
    const diagnostics = await typeCheck(`
      import type { components, operations } from './project.js';
      type Create = components['schemas']['BlogPostsCreate'];
      type Row = operations['getBlogPosts']['responses'][200]['content']['application/json'];
      type Query = NonNullable<operations['listBlogPosts']['parameters']['query']>;

      export const ok: Create = {
        status: 'DRAFT',
        data: { title: { en: 'Hello', fr: 'Bonjour' }, price: 12, color: 'green', topics: ['tech'], meta: [1, 'two'], author: 'id' },
      };
      export const plainTitle: Create = { data: { title: 'Hello', price: null } };
      export const query: Query = { locale: 'fr', op: 'or', size: 50 };
      export const readPrice = (row: Row): number | undefined => row.data.price;
      export const readStatus = (row: Row): 'DRAFT' | 'SCHEDULED' | 'PUBLISHED' | 'ARCHIVED' => row.status;

      // @ts-expect-error price is a number
      export const badPrice: Create = { data: { title: 'Hi', price: 'twelve' } };
      // @ts-expect-error color is one of the options
      export const badColor: Create = { data: { title: 'Hi', color: 'blue' } };
      // @ts-expect-error title is required
      export const noTitle: Create = { data: { price: 1 } };
      // @ts-expect-error unknown columns are refused
      export const unknownColumn: Create = { data: { title: 'Hi', nope: 1 } };
      // @ts-expect-error de is not a project locale
      export const badLocale: Create = { data: { title: { en: 'Hi', de: 'Hallo' } } };
      // @ts-expect-error a single reference is one id
      export const badReference: Create = { data: { title: 'Hi', author: ['a', 'b'] } };
      // @ts-expect-error locale is one of the project locales
      export const badQuery: Query = { locale: 'de' };

      // The openapi-fetch client of docs/clients.md, with the project in the base URL.
      import createClient from 'openapi-fetch';
      import type { paths } from './project.js';
      const cms = createClient<paths>({ baseUrl: 'https://cms.example.com/v1/project-id', headers: { Authorization: 'Bearer tak_x' } });
      export async function use(): Promise<(string | null | undefined)[]> {
        const { data } = await cms.GET('/tables/blog_posts/contents', { params: { query: { locale: 'fr', size: 50 } } });
        await cms.POST('/tables/blog_posts/contents', { body: { data: { title: { en: 'Hello', fr: 'Bonjour' }, price: 12 } } });
        await cms.PUT('/tables/blog_posts/contents/{contentsId}', { params: { path: { contentsId: 'hello-world' } }, body: { data: { price: null } } });
        // @ts-expect-error there is no such table
        await cms.GET('/tables/nope/contents');
        return (data?.list ?? []).map((row) => (typeof row.data?.title === 'object' ? row.data.title?.en : row.data?.title));
      }
    `);
    expect(diagnostics).toEqual([]);
  });
});
