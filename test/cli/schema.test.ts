import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPlan } from '../../src/cli/plan-format.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runBuilt } from '../helpers/child.js';
import { expectCreated, expectStatus } from '../helpers/expect.js';

/** `npm run cli -- schema pull | diff | apply` against a test database (docs/environments.md#the-cli). */

let t: TestApi;
let dir: string;
let workspaceId: string;
const cli = (...args: string[]) => runBuilt('src/cli/main.ts', args, { DATABASE_URL: t.db.url, LOG_LEVEL: 'warn' });

beforeAll(async () => {
  t = await startTestApi();
  dir = await mkdtemp(path.join(tmpdir(), 'tabula-schema-'));
  workspaceId = expectCreated(await t.call('POST', '/v1/workspaces', { body: { name: 'Envs' } })).id;
});
afterAll(() => t?.close());

const newProject = async (name: string) => expectCreated(await t.call('POST', `/v1/workspaces/${workspaceId}/projects`, { body: { name } })).id as string;

describe('schema commands', () => {
  it('pull writes the snapshot; apply makes another project equal; diff shows the plan plain in a pipe, or as JSON', { timeout: 120_000 }, async () => {
    const staging = await newProject('Staging');
    const production = await newProject('Production');
    const posts = expectCreated(await t.call('POST', `/v1/${staging}/tables`, { body: { key: 'posts', name: 'Posts' } }));
    expectCreated(await t.call('POST', `/v1/${staging}/tables/posts/columns`, { body: { name: 'title', type: 'text', settings: { required: true } } }));
    expectCreated(await t.call('POST', `/v1/${staging}/roles`, { body: { name: 'reader', rules: [{ table: 'posts', actions: ['read'] }] } }));
    expect(posts.key).toBe('posts');

    const file = path.join(dir, 'staging.json');
    const pulled = await cli('schema', 'pull', '--project', staging, '--file', file);
    expect(pulled, pulled.stderr).toMatchObject({ code: 0, stdout: '' });
    const text = await readFile(file, 'utf8');
    expect(JSON.parse(text)).toEqual(expectStatus(await t.call('GET', `/v1/${staging}/schema`), 200));
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);

    const plain = await cli('schema', 'diff', '--project', production, '--file', file);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe(
      ['+ create table posts (name "Posts", defaultStatus PUBLISHED)', '+ add column posts.title text {"required":true}', '+ create role reader', '', '3 changes, 0 destructive', ''].join('\n'),
    );
    const json = await cli('schema', 'diff', '--project', production, '--file', file, '--json');
    expect(JSON.parse(json.stdout).changes.map((c: { op: string }) => c.op)).toEqual(['createTable', 'addColumn', 'createRole']);

    const dry = await cli('schema', 'apply', '--project', production, '--file', file, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/Dry run: nothing was applied\.\n$/);
    expect(expectStatus(await t.call('GET', `/v1/${production}/schema`), 200).tables).toEqual([]);

    const applied = await cli('schema', 'apply', '--project', production, '--file', file);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Applied\.\n$/);
    const again = await cli('schema', 'pull', '--project', production);
    expect(again.stdout).toBe(text);
    expect((await cli('schema', 'apply', '--project', production, '--file', file)).stdout).toBe('No changes: the project already matches the snapshot.\n');
  });

  it('destructive changes need --allow-destructive: exit 1 naming them, nothing applied', { timeout: 120_000 }, async () => {
    const p = await newProject('Drops');
    expectCreated(await t.call('POST', `/v1/${p}/tables`, { body: { key: 'old', name: 'Old' } }));
    expectCreated(await t.call('POST', `/v1/${p}/tables/old/contents`, { body: { data: {} } }));
    const file = path.join(dir, 'empty.json');
    await writeFile(file, JSON.stringify({ format: 1, locales: ['en'], defaultLocale: 'en', tables: [], roles: [] }));
    const refused = await cli('schema', 'apply', '--project', p, '--file', file);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('error: CONFLICT: The plan holds destructive changes; apply with allowDestructive to make them: dropTable old (1 row)');
    expect((await t.call('GET', `/v1/${p}/tables/old`)).status).toBe(200);
    const allowed = await cli('schema', 'apply', '--project', p, '--file', file, '--allow-destructive', '--json');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({ changes: [{ op: 'dropTable', table: 'old', from: { name: 'Old', description: '', defaultStatus: 'PUBLISHED' }, destructive: true, rows: 1 }] });
    expect((await t.call('GET', `/v1/${p}/tables/old`)).status).toBe(404);
  });

  it('a file that is not a snapshot, or no --file: usage error, exit 2', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, '{"format":2}');
    const [bad, missing] = await Promise.all([cli('schema', 'diff', '--project', workspaceId, '--file', file), cli('schema', 'apply', '--project', workspaceId)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --file: not a schema snapshot: format: /);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: --file is required/);
  });
});

describe('plan format', () => {
  const changes = [
    { op: 'updateColumn', table: 'posts', column: 'n', from: { type: 'text' }, to: { type: 'integer' }, destructive: true, rows: 2 },
    { op: 'dropRole', role: 'old', destructive: false },
  ] as const;
  it('colours for a terminal, plain text otherwise, the same words', () => {
    const plain = formatPlan([...changes], false);
    const coloured = formatPlan([...changes], true);
    expect(plain).toBe('~ update column posts.n: type text → integer (2 rows) DESTRUCTIVE\n- drop role old\n\n2 changes, 1 destructive\n');
    expect(coloured).toContain('\u001b[33m~ update column posts.n');
    expect(coloured).toContain('\u001b[31m- drop role old');
    // eslint-disable-next-line no-control-regex
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });
});
