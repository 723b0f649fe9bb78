import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TOKEN_PREFIX, generateSecret } from '../../src/shared/secrets.js';
import { nodeVersionProblem } from '../../src/node-version.mjs';
import { builtEntry, freePort, root } from '../helpers/child.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { commandOf, killAll, processTree, stillRunning } from '../helpers/process-tree.js';
import { until } from '../helpers/until.js';

/**
 * Issue "server package" item 3: the production build. A copy of the repository receives what
 * `npm run build` made (dist/ and admin/dist, built by `pretest` before the tests: building again
 * here cost a full tsc and Vite run), then keeps only what a production install holds
 * (package.json, node_modules, dist/, admin/dist): no TypeScript sources, so anything the compiled
 * code still wanted from src/ (a file read next to a source, the tsx loader) fails here. The copy
 * is a temporary directory, so that nothing here touches the dist/ other test files are running.
 */
const exec = promisify(execFile);
const token = generateSecret(ACCOUNT_TOKEN_PREFIX);
let copy: string;
let db: TestDatabase;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  copy = await mkdtemp(path.join(os.tmpdir(), 'tabula-compiled-'));
  cleanup.push(() => rm(copy, { recursive: true, force: true }));
  for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'mikro-orm.config.ts', 'src', 'workers', 'admin']) {
    // The console's package without its build: the build pretest made is copied in below, with dist/.
    await cp(path.join(root, entry), path.join(copy, entry), { recursive: true, filter: (from) => !from.startsWith(path.join(root, 'admin', 'dist')) });
  }
  await symlink(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
  db = await createTestDatabase();
  cleanup.push(() => db.drop());
});

afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

const quietNpm = { npm_config_update_notifier: 'false', npm_config_fund: 'false' };

/** A command in the copy, run to its end; never rejects on a non-zero exit. */
async function runIn(command: string, args: string[], env: Record<string, string> = {}, timeout = 60_000) {
  return exec(command, args, { cwd: copy, env: { ...process.env, ...quietNpm, ...env }, timeout }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

interface Started {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** A long-running command in the copy, in a process group of its own (as in a terminal). */
function startIn(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, {
    cwd: copy,
    env: { ...process.env, ...quietNpm, NODE_ENV: 'production', LOG_FORMAT: 'json', LOG_LEVEL: 'info', DATABASE_URL: db.url, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanup.push(async () => {
    await killAll(await processTree(child.pid!));
  });
  return { child, exited, output: () => text };
}

/** Waits (30 s at most) until `ready()` holds; fails at once, with the output, if the process ended. */
async function comesUp(started: Started, what: string, ready: () => Promise<boolean>): Promise<void> {
  await until(async () => {
    if (started.child.exitCode !== null) throw new Error(`exited before ${what}`);
    return ready();
  }, 30_000, what, 100).catch((error: Error) => {
    throw new Error(`no ${what} (${error.message}):\n${started.output()}`);
  });
}

/** The processes under npm: with `exec` in the script, node is npm's own child, with no shell between. */
async function nodeUnderNpm(npm: Started): Promise<{ pid: number; command: string }> {
  const [, ...below] = await processTree(npm.child.pid!);
  const commands = await Promise.all(below.map(async (pid) => ({ pid, command: await commandOf(pid) })));
  expect(commands.length, JSON.stringify(commands)).toBe(1);
  return commands[0];
}

function logged(output: string, msg: string): boolean {
  return output.split('\n').some((line) => line.startsWith('{') && JSON.parse(line).msg === msg);
}

async function expectNothingLeft(tree: number[]): Promise<void> {
  expect(await stillRunning(tree)).toEqual([]);
}

it('without a build, npm run start:api and start:worker stop at once and say to run npm run build', async () => {
  for (const [script, entry] of [
    ['start:api', 'dist/src/api.js'],
    ['start:worker', 'dist/workers/main.js'],
  ]) {
    const outcome = await runIn('npm', ['run', '--silent', script], { DATABASE_URL: db.url });
    expect(outcome.code, script).toBe(1);
    expect(outcome.stderr, script).toContain(`Tabula is not built (${entry} is missing): run npm run build first.`);
  }
});

describe('after npm run build, with the sources gone', () => {
  beforeAll(async () => {
    // builtEntry refuses a dist/ that is missing or older than the sources.
    builtEntry('src/api.ts');
    for (const entry of ['dist', 'admin/dist']) await cp(path.join(root, entry), path.join(copy, entry), { recursive: true });
    for (const entry of ['src', 'workers', 'tsconfig.json', 'tsconfig.build.json', 'mikro-orm.config.ts', 'admin/src', 'admin/index.html']) {
      await rm(path.join(copy, entry), { recursive: true });
    }
  }, 150_000);

  it('npm run start:api runs the compiled API with node alone: ready, docs page, console, a real request, exit 0 on SIGTERM', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const npm = startIn('npm', ['run', '--silent', 'start:api'], { HOST: '127.0.0.1', PORT: String(port), ADMIN_EMAIL: 'build@example.com', ADMIN_TOKEN: token });
    await comesUp(npm, 'readiness', () => fetch(`${url}/readyz`).then((r) => r.ok, () => false));
    const node = await nodeUnderNpm(npm);
    expect(node.command).toBe('node --import ./dist/src/check-node.js --max-semi-space-size=8 dist/src/api.js');

    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/v1/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'Built' }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const read = await fetch(`${url}/v1/workspaces/${id}`, { headers });
    expect(await read.json()).toMatchObject({ id, name: 'Built' });
    // The docs page and its assets come from swagger-ui's package, found from the compiled code.
    const docs = await fetch(`${url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
    expect((await fetch(`${url}/docs/swagger-ui-bundle.js`)).status).toBe(200);
    // The console, built by npm run build into admin/dist and found from dist/src/http.
    const consolePage = await fetch(`${url}/admin/`);
    expect(consolePage.status).toBe(200);
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(await consolePage.text());
    expect(script).not.toBeNull();
    expect((await fetch(`${url}${script![1]}`)).status).toBe(200);

    const tree = await processTree(npm.child.pid!);
    process.kill(node.pid, 'SIGTERM');
    expect(await npm.exited, npm.output()).toBe(0);
    expect(logged(npm.output(), 'stopped'), npm.output()).toBe(true);
    await expectNothingLeft(tree);
  });

  it('npm run start:worker runs the compiled worker with node alone: workers started, exit 0 on SIGTERM', async () => {
    const npm = startIn('npm', ['run', '--silent', 'start:worker'], {});
    await comesUp(npm, '"workers started"', async () => logged(npm.output(), 'workers started'));
    const node = await nodeUnderNpm(npm);
    expect(node.command).toBe('node --import ./dist/src/check-node.js dist/workers/main.js');

    const tree = await processTree(npm.child.pid!);
    process.kill(node.pid, 'SIGTERM');
    expect(await npm.exited, npm.output()).toBe(0);
    expect(logged(npm.output(), 'stopped'), npm.output()).toBe(true);
    await expectNothingLeft(tree);
  });

  it('the compiled dist/src/main.js runs the compiled worker as its one child process', async () => {
    const port = await freePort();
    const main = startIn(process.execPath, ['dist/src/main.js'], { HOST: '127.0.0.1', PORT: String(port), ADMIN_EMAIL: 'build@example.com', ADMIN_TOKEN: token });
    await comesUp(main, 'readiness and "workers started"', async () => logged(main.output(), 'workers started') && (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)));
    const [, ...below] = await processTree(main.child.pid!);
    expect(await Promise.all(below.map(commandOf))).toEqual([`${process.execPath} ${path.join(copy, 'dist', 'workers', 'main.js')}`]);

    const tree = await processTree(main.child.pid!);
    main.child.kill('SIGTERM');
    expect(await main.exited, main.output()).toBe(0);
    await expectNothingLeft(tree);
  });

  it('the compiled preload stops an old Node.js with the version message before the entry loads', async () => {
    const fake = 'data:text/javascript,Object.defineProperty(process.versions, "node", { value: "20.19.0" })';
    const outcome = await runIn(process.execPath, ['--import', fake, '--import', './dist/src/check-node.js', 'dist/src/api.js']);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trim()).toBe(nodeVersionProblem('20.19.0'));
  });

  it('npm pack ships package.json, the README and dist/, nothing else (no sources, tests or benchmarks)', async () => {
    const pack = async (cwd: string) => {
      const { stdout } = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd, env: { ...process.env, ...quietNpm } });
      return ((JSON.parse(stdout) as { files: { path: string }[] }[])[0].files).map((f) => f.path);
    };
    const shipped = (file: string) => file === 'package.json' || file === 'README.md' || file.startsWith('dist/');
    // The repository itself, with its tests, benchmarks and examples beside the sources.
    const fromRepo = await pack(root);
    expect(fromRepo.filter((file) => !shipped(file))).toEqual([]);
    // The built copy: the compiled entry points are in.
    const fromCopy = await pack(copy);
    expect(fromCopy.filter((file) => !shipped(file))).toEqual([]);
    expect(fromCopy).toEqual(expect.arrayContaining(['package.json', 'dist/src/api.js', 'dist/src/check-node.js', 'dist/workers/main.js', 'dist/mikro-orm.config.js']));
    expect(fromCopy.filter((file) => file.endsWith('.ts'))).toEqual([]);
  });
});
