import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError, expectStatus } from '../helpers/expect.js';
import { describeProblems, lintOpenApi } from '../helpers/openapi-lint.js';
import { buildWorld, GHOST, type World } from '../contents/fixture.js';
import { invite } from '../foundation/helpers.js';
import { buildCatalog, invalidPosts, validPost, type Catalog } from './project-fixture.js';

/** `GET /v1/{projectId}/openapi.json`: who may read it, what it says, and that it is true. */

// The document is read as JSON; the assertions say what they expect of it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

let t: TestApi;
let w: World;
let other: World;
let catalog: Catalog;
let authorId: string;
const docPath = () => `/v1/${w.projectId}/openapi.json`;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  other = await buildWorld(t);
  catalog = await buildCatalog(w);
  const author = await t.call('POST', `/v1/${w.projectId}/tables/authors/contents`, { token: w.writeKey, body: { data: { name: 'Ada' } } });
  authorId = expectStatus(author, 201).id;
});
afterAll(async () => t?.close());

const fetchDoc = async (token = w.readKey): Promise<Doc> => expectStatus(await t.call('GET', docPath(), { token }), 200);

describe('who may read a project’s document', () => {
  it('answers read and read_write keys, the account and a project VIEWER', async () => {
    const viewer = await invite(t, w.workspaceId, 'MEMBER');
    expectStatus(await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}/members`, { body: { email: viewer.email, role: 'VIEWER' } }), 201);
    for (const token of [w.readKey, w.writeKey, t.adminToken, viewer.token]) {
      const res = await t.call('GET', docPath(), { token });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json.openapi).toBe('3.1.0');
    }
  });

  it('refuses in order: 401, then 403, then 404', async () => {
    expectError(await t.call('GET', docPath(), { token: null }), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', docPath(), { token: 'tak_' + 'x'.repeat(43) }), 401, 'UNAUTHORIZED');
    // A key of another project: 403 whether or not the addressed project exists.
    expectError(await t.call('GET', docPath(), { token: other.readKey }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1/${GHOST}/openapi.json`, { token: w.readKey }), 403, 'FORBIDDEN');
    const stranger = await invite(t, w.workspaceId, 'MEMBER');
    expectError(await t.call('GET', docPath(), { token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1/${GHOST}/openapi.json`), 404, 'NOT_FOUND');
    expectError(await t.call('POST', docPath(), { body: {} }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('is listed in the /v1 reference', async () => {
    const reference = expectStatus(await t.call('GET', '/v1/openapi.json', { token: null }), 200);
    expect(reference.paths['/{projectId}/openapi.json'].get.summary).toContain('OpenAPI');
  });
});

describe('what a project’s document says', () => {
  it('lints with the recommended ruleset: no errors, and only the license warning', async () => {
    const { errors, warnings } = await lintOpenApi(await fetchDoc());
    expect(errors, describeProblems(errors)).toEqual([]);
    // Justified as for /v1/openapi.json (test/openapi/reference.test.ts): no license is chosen.
    expect(warnings.map((p) => p.ruleId)).toEqual(['info-license']);
    // A project without tables has a valid, empty document.
    const empty = expectStatus(await t.call('GET', `/v1/${other.projectId}/openapi.json`, { token: other.readKey }), 200);
    expect(empty.paths).toEqual({});
    expect((await lintOpenApi(empty)).errors).toEqual([]);
  });

  it('has the five contents operations of each table under /v1/{projectId}', async () => {
    const doc = await fetchDoc();
    expect(doc.servers).toEqual([{ url: `/v1/${w.projectId}`, description: expect.any(String) }]);
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toEqual(['authors', 'blog_posts']);
    const ids: string[] = [];
    for (const key of ['authors', 'blog_posts']) {
      const collection = doc.paths[`/tables/${key}/contents`];
      const item = doc.paths[`/tables/${key}/contents/{contentsId}`];
      expect(Object.keys(collection).sort()).toEqual(['get', 'post']);
      expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'parameters', 'put']);
      ids.push(collection.get.operationId, collection.post.operationId, item.get.operationId, item.put.operationId, item.delete.operationId);
      expect(Object.keys(collection.post.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '404', '409', '413', '415', '422', '429']));
      expect(Object.keys(item.delete.responses)).toEqual(expect.arrayContaining(['204', '401', '403', '404']));
    }
    expect(ids).toEqual(['listAuthors', 'createAuthors', 'getAuthors', 'updateAuthors', 'deleteAuthors', 'listBlogPosts', 'createBlogPosts', 'getBlogPosts', 'updateBlogPosts', 'deleteBlogPosts']);
    const list = doc.paths['/tables/blog_posts/contents'].get.parameters;
    const param = (name: string) => list.find((p: { name: string }) => p.name === name);
    expect(param('locale').schema.enum).toEqual(['en', 'fr']);
    expect(param('filter').description).toContain('`topics` (select, multiple): `eq`, `neq`, `in`, `nin`, `null`');
    expect(param('filter').description).toContain('`price` (number): `eq`, `neq`, `in`, `nin`, `null`, `gt`, `gte`, `lt`, `lte`, `between`');
    expect(param('sort').description).toContain('Sortable columns of this table: `title`, `slug`');
    expect(param('sort').description).not.toContain('`topics`');
  });

  it('types data by the columns: every type, required, bounds, pattern, options and locales', async () => {
    const { components } = await fetchDoc();
    const read = components.schemas.BlogPostsData;
    const create = components.schemas.BlogPostsCreateData;
    const p = create.properties;
    expect(read.required).toEqual(['title', 'stock']);
    expect(create.required).toEqual(['title']);
    expect(read.additionalProperties).toBe(false);
    expect(p.title.anyOf[0]).toMatchObject({
      type: 'object',
      properties: { en: { type: 'string', maxLength: 120 }, fr: { anyOf: [{ type: 'string', maxLength: 120 }, { type: 'null' }] } },
      required: ['en'],
      additionalProperties: false,
    });
    expect(p.title.anyOf[1]).toMatchObject({ type: 'string', maxLength: 120 });
    expect(p.title.title).toBe('Title');
    expect(p.body.anyOf[0].anyOf[1]).toMatchObject({ type: 'string', minLength: 1 });
    expect(p.slug.anyOf[0]).toMatchObject({ type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' });
    expect(p.sku.anyOf[0]).toEqual({ type: 'string', pattern: '^(?:[A-Z]{3}-\\d{4})$' });
    expect(p.price.anyOf[0]).toEqual({ type: 'number', minimum: 0, maximum: 1000 });
    expect(p.stock).toMatchObject({ type: 'integer', minimum: 0 });
    expect(p.stock.description).toContain('default when omitted: 0');
    expect(p.featured.anyOf[0]).toEqual({ type: 'boolean' });
    expect(p.day.anyOf[0]).toEqual({ type: 'string', format: 'date' });
    expect(p.at.anyOf[0]).toMatchObject({ type: 'string', format: 'date-time' });
    expect(p.contact.anyOf[0]).toMatchObject({ type: 'string', format: 'email' });
    expect(p.site.anyOf[0].anyOf[0].properties.fr.anyOf[0]).toMatchObject({ type: 'string', format: 'uri' });
    expect(p.color.anyOf[0]).toEqual({ type: 'string', enum: ['red', 'green'] });
    expect(p.topics.anyOf[0]).toEqual({ type: 'array', items: { type: 'string', enum: ['news', 'tech'] } });
    expect(p.meta.description).toContain('Any JSON value');
    expect(p.author.anyOf[0]).toMatchObject({ type: 'string', format: 'uuid', description: expect.stringContaining('`authors`') });
    expect(p.related.anyOf[0]).toMatchObject({ type: 'array', items: { type: 'string', format: 'uuid' } });
    expect(p.cover.anyOf[0]).toMatchObject({ type: 'string', format: 'uuid' });
    expect(p.gallery.anyOf[0]).toMatchObject({ type: 'array', items: { type: 'string', format: 'uuid' } });
    // Reads: no nulls stored; localized values may come back plain (with ?locale=).
    expect(read.properties.price).toMatchObject({ type: 'number' });
    expect(read.properties.title.anyOf.map((s: { type: string }) => s.type)).toEqual(['object', 'string', 'null']);
    expect(components.schemas.BlogPostsUpdateData.required).toBeUndefined();
    // An update replaces a localized value whole: a required one must keep its default locale.
    expect(components.schemas.BlogPostsUpdateData.properties.title.anyOf[0].required).toEqual(['en']);
  });

  it('follows schema changes at once', async () => {
    const before = await fetchDoc();
    expectStatus(await t.call('POST', `/v1/${w.projectId}/tables/authors/columns`, { body: { name: 'born', type: 'date' } }), 201);
    const after = await fetchDoc();
    expect(after.info.version).not.toBe(before.info.version);
    expect(after.components.schemas.AuthorsData.properties.born).toMatchObject({ type: 'string', format: 'date' });
    expectStatus(await t.call('DELETE', `/v1/${w.projectId}/tables/authors/columns/born`), 204);
    expect((await fetchDoc()).components.schemas.AuthorsData.properties.born).toBeUndefined();
  });
});

describe('the document tells the truth', () => {
  /** The document with `example`s set at the given operations' media types. */
  function withExamples(doc: Doc, examples: { path: string; method: string; where: 'request' | string; value: unknown }[]): Doc {
    const copy = structuredClone(doc);
    for (const e of examples) {
      const op = copy.paths[e.path][e.method];
      const media = e.where === 'request' ? op.requestBody.content['application/json'] : op.responses[e.where].content['application/json'];
      media.example = e.value;
    }
    return copy;
  }
  const posts = '/tables/blog_posts/contents';
  const post = '/tables/blog_posts/contents/{contentsId}';

  it('accepts what the API accepts and describes what it answers', async () => {
    const doc = await fetchDoc();
    const body = validPost(authorId, catalog.fileId);
    const created = expectStatus(await t.call('POST', `/v1/${w.projectId}${posts.replace('blog_posts', catalog.postsId)}`, { token: w.writeKey, body }), 201);
    const update = { data: { price: null, title: { en: 'Hello world', fr: null } }, status: 'DRAFT' };
    const updated = expectStatus(await t.call('PUT', `/v1/${w.projectId}/tables/blog_posts/contents/${created.id}`, { token: w.writeKey, body: update }), 200);
    const inFrench = expectStatus(await t.call('GET', `/v1/${w.projectId}/tables/blog_posts/contents/${created.data.slug}?locale=fr`, { token: w.writeKey }), 200);
    const page = expectStatus(await t.call('GET', `/v1/${w.projectId}/tables/blog_posts/contents?fields=title,price&withCount=false`, { token: w.writeKey }), 200);
    expect(created.data).toMatchObject({ slug: 'hello-world', stock: 3 });
    expect(inFrench.data.title).toBe('Hello world');

    const checked = withExamples(doc, [
      { path: posts, method: 'post', where: 'request', value: body },
      { path: posts, method: 'post', where: '201', value: created },
      { path: post, method: 'put', where: 'request', value: update },
      { path: post, method: 'put', where: '200', value: updated },
      { path: post, method: 'get', where: '200', value: inFrench },
      { path: posts, method: 'get', where: '200', value: page },
    ]);
    const { errors } = await lintOpenApi(checked);
    expect(errors, describeProblems(errors)).toEqual([]);
  });

  it('refuses what the API refuses', async () => {
    const doc = await fetchDoc();
    for (const [reason, body] of Object.entries(invalidPosts(authorId))) {
      const res = await t.call('POST', `/v1/${w.projectId}${posts}`, { token: w.writeKey, body });
      expect([400, 422], `${reason}: ${res.text}`).toContain(res.status);
      const { errors } = await lintOpenApi(withExamples(doc, [{ path: posts, method: 'post', where: 'request', value: body }]));
      expect(errors.map((p) => p.ruleId), reason).toContain('no-invalid-media-type-examples');
    }
    const row = expectStatus(await t.call('POST', `/v1/${w.projectId}${posts}`, { token: w.writeKey, body: { data: { title: 'Row' } } }), 201);
    const updates = { 'required cleared': { data: { stock: null } }, 'default locale removed': { data: { title: { en: null } } } };
    for (const [reason, body] of Object.entries(updates)) {
      const res = await t.call('PUT', `/v1/${w.projectId}/tables/blog_posts/contents/${row.id}`, { token: w.writeKey, body });
      expectError(res, 422, 'VALIDATION_ERROR');
      const { errors } = await lintOpenApi(withExamples(doc, [{ path: post, method: 'put', where: 'request', value: body }]));
      expect(errors.map((p) => p.ruleId), reason).toContain('no-invalid-media-type-examples');
    }
  });
});
