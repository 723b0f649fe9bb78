import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../src/jobs/queues.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runBuilt, runNpmScript } from '../helpers/child.js';
import { TOKEN_SHAPE, UUID_SHAPE } from '../helpers/expect.js';

/**
 * `npm run cli -- …` as a child process against a test database: outputs and exit codes. The
 * first test runs the npm script itself (tsx on the sources); the others run the same entry point
 * compiled (dist/, built by `pretest`), which starts in a fraction of the time.
 */

let t: TestApi;
const cli = (...args: string[]) => runBuilt('src/cli/main.ts', args, { DATABASE_URL: t.db.url, LOG_LEVEL: 'warn' });
/** Usage and option errors never open the database: one that nothing listens on proves it. */
const OFFLINE = { DATABASE_URL: 'postgres://127.0.0.1:1/nothing' };
const offline = (...args: string[]) => runBuilt('src/cli/main.ts', args, OFFLINE);
const MISSING = '0190b0a0-0000-7000-8000-00000000c0de';

beforeAll(async () => {
  t = await startTestApi();
});
afterAll(() => t?.close());

describe('usage', () => {
  it('--help lists every command; each command and group has its own help', async () => {
    const [overview, command, group] = await Promise.all([runNpmScript('cli', ['--help'], OFFLINE), offline('key', 'create', '--help'), offline('workspace', '--help')]);
    expect(overview.code).toBe(0);
    for (const name of ['token create', 'workspace create', 'project create', 'key create', 'queues', 'deliveries replay', 'migrate']) {
      expect(overview.stdout).toContain(`  ${name} `);
    }
    expect(command).toMatchObject({ code: 0, stderr: '' });
    expect(command.stdout).toMatch(/^Usage: npm run cli -- key create --project <projectId> --name <name> --permission read\|read_write/);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('workspace create');
  });

  it('an unknown command, a missing subcommand, an unknown option or a missing value: usage on stderr, exit 2', async () => {
    const runs = await Promise.all([
      offline('frobnicate'),
      offline('workspace'),
      offline('queues', '--bogus'),
      offline('project', 'create', '--name', 'Site'),
      offline('key', 'create', '--project', MISSING, '--name', 'k', '--permission', 'admin'),
      offline('project', 'create', '--workspace', MISSING, '--name', 'Site', '--locales', 'en,Not A Locale'),
      offline('token', 'create', '--email', 'not-an-email'),
    ]);
    const expected = [
      [/^error: Unknown command "frobnicate"\n\nUsage: npm run cli -- <command>/],
      [/^error: "workspace" needs a subcommand\n\nUsage: npm run cli -- workspace <create>/],
      [/^error: Unknown option '--bogus'/, /Usage: npm run cli -- queues/],
      [/^error: --workspace is required\n\nUsage: npm run cli -- project create/],
      [/^error: --permission: Invalid option: expected one of "read"\|"read_write"/],
      [/^error: --locales: must be a locale code such as en or pt-BR/],
      [/^error: --email: Invalid email address/],
    ];
    runs.forEach((run, i) => {
      expect({ code: run.code, stdout: run.stdout }, run.stderr).toEqual({ code: 2, stdout: '' });
      for (const pattern of expected[i]) expect(run.stderr).toMatch(pattern);
    });
  });
});

describe('operator commands', () => {
  it('token, workspace, project and key create: JSON out, and what they create works on the API', { timeout: 60_000 }, async () => {
    const token = await cli('token', 'create', '--email', 'Ops@Example.com');
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout.trim()).toMatch(TOKEN_SHAPE);

    const ws = await cli('workspace', 'create', '--name', 'Acme', '--owner-email', 'new-owner@example.com');
    expect(ws.code, ws.stderr).toBe(0);
    const workspace = JSON.parse(ws.stdout);
    expect(workspace).toMatchObject({ name: 'Acme', role: 'OWNER', owner: { email: 'new-owner@example.com', created: true } });
    expect(workspace.id).toMatch(UUID_SHAPE);
    expect(ws.stderr).toContain('npm run cli -- token create --email new-owner@example.com');

    const pr = await cli('project', 'create', '--workspace', workspace.id, '--name', 'Website', '--locales', 'en, de', '--default-locale', 'de');
    expect(pr.code, pr.stderr).toBe(0);
    const project = JSON.parse(pr.stdout);
    expect(project).toMatchObject({ workspaceId: workspace.id, name: 'Website', locales: ['en', 'de'], defaultLocale: 'de' });

    const k = await cli('key', 'create', '--project', project.id, '--name', 'site', '--permission', 'read');
    expect(k.code, k.stderr).toBe(0);
    const key = JSON.parse(k.stdout);
    expect(key).toMatchObject({ name: 'site', permission: 'read', active: true, allowedHosts: [] });
    expect(key.key).toMatch(/^tak_[A-Za-z0-9]{43}$/);

    // The key reads its project and may not write; the owner's CLI token reaches the workspace.
    expect((await t.call('GET', `/v1/${project.id}/tables`, { token: key.key })).status).toBe(200);
    expect((await t.call('POST', `/v1/${project.id}/tables`, { token: key.key, body: { key: 'a', name: 'A' } })).status).toBe(403);
    const ownerToken = (await cli('token', 'create', '--email', 'new-owner@example.com')).stdout.trim();
    const seen = await t.call('GET', `/v1/workspaces/${workspace.id}`, { token: ownerToken });
    expect(seen.json).toMatchObject({ id: workspace.id, role: 'OWNER' });
  });

  it('a refused operation prints its error code and exits 1', { timeout: 60_000 }, async () => {
    const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Other', '--owner-email', t.adminEmail)).stdout);
    const [unknownWorkspace, badDefault, unknownProject] = await Promise.all([
      cli('project', 'create', '--workspace', MISSING, '--name', 'Site'),
      cli('project', 'create', '--workspace', ws.id, '--name', 'Site', '--locales', 'en', '--default-locale', 'fr'),
      cli('key', 'create', '--project', MISSING, '--name', 'k', '--permission', 'read_write'),
    ]);
    expect(unknownWorkspace).toMatchObject({ code: 1, stdout: '', stderr: 'error: NOT_FOUND: Workspace not found\n' });
    expect(badDefault).toMatchObject({ code: 1, stdout: '' });
    expect(badDefault.stderr).toMatch(/^error: VALIDATION_ERROR: Validation failed: defaultLocale\n {2}defaultLocale: must be one of locales \(en\)\n$/);
    expect(unknownProject).toMatchObject({ code: 1, stdout: '', stderr: 'error: NOT_FOUND: Project not found\n' });
  });

  it('queues shows queued, deferred, active and failed counts per queue', { timeout: 60_000 }, async () => {
    // No worker runs against this database: the jobs stay where they are put.
    const boss = t.api.deps.boss;
    for (let i = 0; i < 2; i++) await boss.send(QUEUES.purge.name, { kind: 'workspace', id: MISSING }, { startAfter: 3600 });
    const retention = QUEUES.webhookRetention.name;
    const doomed = await boss.send(retention, {}, { retryLimit: 0 });
    await boss.send(retention, {}, { retryLimit: 0 });
    expect(await boss.fetch(retention, { batchSize: 2 })).toHaveLength(2);
    await boss.fail(retention, doomed!);

    const json = await cli('queues', '--json');
    expect(json.code, json.stderr).toBe(0);
    const depths = JSON.parse(json.stdout) as { name: string; queued: number; deferred: number; active: number; failed: number; capturedOn: string }[];
    const byName = new Map(depths.map((d) => [d.name, d]));
    for (const queue of Object.values(QUEUES)) expect(byName.has(queue.name), queue.name).toBe(true);
    expect(byName.get(QUEUES.purge.name)).toMatchObject({ queued: 2, deferred: 2, active: 0, failed: 0 });
    expect(byName.get(retention)).toMatchObject({ queued: 0, deferred: 0, active: 1, failed: 1 });
    expect(Date.now() - Date.parse(byName.get(retention)!.capturedOn)).toBeLessThan(60_000);

    const table = await cli('queues');
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^QUEUE\s+QUEUED\s+DEFERRED\s+ACTIVE\s+FAILED$/);
    expect(lines).toContainEqual(expect.stringMatching(/^purge\s+2\s+2\s+0\s+0$/));
    expect(lines).toContainEqual(expect.stringMatching(/^webhook-retention\s+0\s+0\s+1\s+1$/));
  });
});
