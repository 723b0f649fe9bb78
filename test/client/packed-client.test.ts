import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

/**
 * @tabula/client as a user gets it: client/ built and packed by npm, the tarball installed into
 * projects of their own outside the repository (nothing there but what npm installs for it and
 * the project's TypeScript), a consumer type-checked with `strict` and without `skipLibCheck`,
 * then run by node against a real API, and bundled for a browser. One project is an ES module
 * project (`"type": "module"`), the other a CommonJS one, as `npm init -y` makes it: its
 * compiled consumer `require()`s the client.
 */

const repoRoot = path.resolve(import.meta.dirname, '../..');
const clientRoot = path.join(repoRoot, 'client');

/** What the consumer project may hold: the client, what it depends on, and the project's own TypeScript. */
const EXPECTED_PACKAGES = ['@tabula/client', '@trpc/client', '@trpc/server', 'eventsource', 'eventsource-parser', 'typescript'];

let scratch: string;
let app: string;
/** The CommonJS project. */
let cjsApp: string;
let t: TestApi;

interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a non-zero exit is a result, not a rejection. npm's settings of the test run itself stay out. */
function run(command: string, args: string[], cwd: string): Promise<Finished> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_(config|package|lifecycle)_/i.test(name)));
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(Object.assign(error, { message: `${command} ${args.join(' ')}: ${error.message}\n${stderr}` }));
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** Builds (npm's prepack runs client/build.mjs) and packs client/, then installs the tarball into the two fresh projects. */
async function installPackedClient(): Promise<void> {
  const packed = await run('npm', ['pack', '--pack-destination', scratch], clientRoot);
  if (packed.code !== 0) throw new Error(`npm pack in client/ failed (${packed.code}):\n${packed.stdout}\n${packed.stderr}`);
  const tarball = (await readdir(scratch)).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${scratch}:\n${packed.stdout}`);
  await Promise.all([
    installInto(app, { name: 'consumer', private: true, type: 'module' }, path.join(scratch, tarball)),
    // What `npm init -y` writes, but private.
    installInto(cjsApp, { name: 'consumer-cjs', version: '1.0.0', private: true, main: 'index.js', type: 'commonjs' }, path.join(scratch, tarball)),
  ]);
}

async function installInto(project: string, manifest: Record<string, unknown>, tarball: string): Promise<void> {
  await mkdir(project);
  // A TypeScript project has its own compiler; the repository's version is in the npm cache already.
  const { version: typescript } = JSON.parse(await readFile(path.join(repoRoot, 'node_modules/typescript/package.json'), 'utf8')) as { version: string };
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ ...manifest, devDependencies: { typescript } }, null, 2));
  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  if (installed.code !== 0) {
    throw new Error(
      `npm install of the packed client failed (${installed.code}). It needs @trpc/client, @trpc/server, eventsource, eventsource-parser and typescript ${typescript} ` +
        `from the npm cache or the npm registry:\n${installed.stdout}\n${installed.stderr}`,
    );
  }
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'tabula-packed-client-'));
  app = path.join(scratch, 'app');
  cjsApp = path.join(scratch, 'app-cjs');
  [t] = await Promise.all([startTestApi(), installPackedClient()]);
}, 300_000);

afterAll(async () => {
  await t?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const file of await filesUnder(dir)) total += (await stat(path.join(dir, file))).size;
  return total;
}

/** Installed packages by name (`@scope/name` or `name`), from the top of node_modules. */
async function installedPackages(modules: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(modules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) names.push(...(await readdir(path.join(modules, entry))).map((name) => `${entry}/${name}`));
    else names.push(entry);
  }
  return names.sort();
}

/** One file per check; `tsc -p <config>` in the consumer project (the ES module one unless `project` says) with its own TypeScript. */
async function typeCheck(config: string, files: string[], outDir?: string, project = app): Promise<Finished> {
  const compilerOptions = {
    strict: true,
    skipLibCheck: false,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    // tRPC's own declarations need the DOM library (fetch, AbortSignal) and Disposable; no @types/node.
    lib: ['ES2023', 'DOM', 'ESNext.Disposable'],
    types: [],
    ...(outDir ? { outDir } : { noEmit: true }),
  };
  await writeFile(path.join(project, config), JSON.stringify({ compilerOptions, files }, null, 2));
  return run(path.join(project, 'node_modules/.bin/tsc'), ['-p', config, '--pretty', 'false'], project);
}

/** Uses the client as an application does; the two `@ts-expect-error` lines must be errors, or tsc fails. */
const CONSUMER = `
import { TRPCClientError } from '@trpc/client';
import { createTabulaClient, TabulaError, type RouterInputs, type RouterOutputs, type TabulaClient, type TabulaErrorCode } from '@tabula/client';

type Workspace = RouterOutputs['workspaces']['get'];

export async function run(baseUrl: string, token: string) {
  const tabula = createTabulaClient({ baseUrl, token });
  const created: Workspace = await tabula.workspaces.create.mutate({ name: 'Packed' });
  const page = await tabula.workspaces.list.query({});
  const listed: string[] = page.list.map((workspace) => workspace.name);
  const listInput: RouterInputs['contents']['list'] = { projectId: created.id, tableId: 'products' };
  if (listInput.page !== undefined) throw new Error('page is optional and absent');

  return {
    created: { id: created.id, name: created.name },
    listed,
    notFound: await failure(() => tabula.workspaces.get.query({ workspaceId: '00000000-0000-4000-8000-000000000000' })),
    invalid: await failure(() => tabula.workspaces.create.mutate({ name: '' })),
  };
}

/** Never called: both mistakes must be compile errors. */
export function mistakes(tabula: TabulaClient, page: RouterOutputs['workspaces']['list']): string {
  // @ts-expect-error tableId is a string
  void tabula.contents.list.query({ projectId: 'p', tableId: 42 });
  // @ts-expect-error list is an array of workspaces
  const name: string = page.list;
  return name;
}

async function failure(call: () => Promise<unknown>) {
  try {
    await call();
    return null;
  } catch (error) {
    if (!(error instanceof TabulaError)) throw error;
    const code: TabulaErrorCode = error.code;
    return {
      name: error.name,
      code,
      status: error.status,
      message: error.message,
      fields: error.details?.map((detail) => detail.field) ?? null,
      hasRequestId: typeof error.requestId === 'string' && error.requestId.length > 0,
      isTRPCClientError: error instanceof TRPCClientError,
    };
  }
}
`;

/** The same two mistakes without `@ts-expect-error`: tsc must refuse this file with exactly these errors. */
const WRONG = `import { createTabulaClient } from '@tabula/client';

const tabula = createTabulaClient({ baseUrl: 'http://127.0.0.1:3000', token: 'tak_example' });

export async function firstRow(): Promise<string> {
  const page = await tabula.contents.list.query({ projectId: 'p', tableId: 42 });
  const rows: string = page.list;
  return rows;
}
`;

/** The CommonJS project's entry point: plain CommonJS that requires the compiled consumer. */
const MAIN_CJS = `const { run } = require('./out/consumer.js');
const [baseUrl, token] = process.argv.slice(2);
run(baseUrl, token).then((result) => console.log(JSON.stringify(result)));
`;

/** Runs the compiled consumer: plain JavaScript, resolved from the project's node_modules only. */
const MAIN = `import { run } from './out/consumer.js';
const [baseUrl, token] = process.argv.slice(2);
console.log(JSON.stringify(await run(baseUrl, token)));
`;

describe('@tabula/client, packed and installed into a project of its own', () => {
  it('installs the built client and tRPC, nothing of the server', async () => {
    const modules = path.join(app, 'node_modules');
    expect(await installedPackages(modules)).toEqual([...EXPECTED_PACKAGES].sort());
    expect((await filesUnder(path.join(modules, '@tabula/client'))).sort()).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json']);

    const manifest = JSON.parse(await readFile(path.join(modules, '@tabula/client/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@tabula/client', version: '0.1.0', type: 'module', engines: { node: '>=22.12' } });
    // One ES module for import and require() (Node.js 22.12+ loads an ES module through require()).
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' });
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(['@trpc/client', '@trpc/server', 'eventsource']);

    const sizes = {
      client: await bytesUnder(path.join(modules, '@tabula/client')),
      trpcClient: await bytesUnder(path.join(modules, '@trpc/client')),
      trpcServer: await bytesUnder(path.join(modules, '@trpc/server')),
      typescript: await bytesUnder(path.join(modules, 'typescript')),
    };
    console.info(`installed bytes: ${JSON.stringify(sizes)}`);
    expect(sizes.client).toBeLessThan(1_000_000);
  });

  it('type-checks a consumer strictly, without skipLibCheck, and refuses wrong inputs and outputs', async () => {
    await writeFile(path.join(app, 'consumer.ts'), CONSUMER);
    await writeFile(path.join(app, 'wrong.ts'), WRONG);

    const good = await typeCheck('tsconfig.json', ['consumer.ts'], 'out');
    expect(good.stdout + good.stderr).toBe('');
    expect(good.code).toBe(0);

    const bad = await typeCheck('tsconfig.wrong.json', ['wrong.ts']);
    expect(bad.code).not.toBe(0);
    const lines = WRONG.split('\n');
    const inputLine = lines.findIndex((line) => line.includes('tableId: 42')) + 1;
    const outputLine = lines.findIndex((line) => line.includes('const rows: string')) + 1;
    const errors = bad.stdout.trim().split('\n');
    expect(errors, bad.stdout).toHaveLength(2);
    expect(errors[0]).toMatch(new RegExp(`^wrong\\.ts\\(${inputLine},\\d+\\): error TS2322: Type 'number' is not assignable to type 'string'\\.$`));
    expect(errors[1]).toMatch(new RegExp(`^wrong\\.ts\\(${outputLine},\\d+\\): error TS2322: Type '\\{ id: string; .*' is not assignable to type 'string'\\.$`));
  });

  it('runs with node against a real API: a workspace created and listed, errors as TabulaError with their code', async () => {
    // The compiled consumer comes from the type-check above; compile again when this test runs alone.
    if (!(await stat(path.join(app, 'out/consumer.js')).catch(() => null))) {
      await writeFile(path.join(app, 'consumer.ts'), CONSUMER);
      expect((await typeCheck('tsconfig.json', ['consumer.ts'], 'out')).code).toBe(0);
    }
    await writeFile(path.join(app, 'main.mjs'), MAIN);
    const ran = await run(process.execPath, ['main.mjs', t.url, t.adminToken], app);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const result = JSON.parse(ran.stdout) as {
      created: { id: string; name: string };
      listed: string[];
      notFound: unknown;
      invalid: unknown;
    };
    expect(result.created.name).toBe('Packed');
    expect(result.listed).toContain('Packed');
    const rest = await t.call('GET', `/v1/workspaces/${result.created.id}`);
    expect(rest.json).toMatchObject({ id: result.created.id, name: 'Packed' });
    const mapped = { name: 'TabulaError', fields: null, hasRequestId: true, isTRPCClientError: true };
    expect(result.notFound).toEqual({ ...mapped, code: 'NOT_FOUND', status: 404, message: expect.stringMatching(/not found/i) });
    expect(result.invalid).toEqual({ ...mapped, code: 'BAD_REQUEST', status: 400, message: expect.stringContaining('name') });
  });

  it('in a CommonJS project: the consumer type-checks with module NodeNext, compiles to require() and runs against a real API', async () => {
    await writeFile(path.join(cjsApp, 'consumer.ts'), CONSUMER);
    const checked = await typeCheck('tsconfig.json', ['consumer.ts'], 'out', cjsApp);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    // tsc made CommonJS of it: node loads the client through require(), not import.
    const compiled = await readFile(path.join(cjsApp, 'out/consumer.js'), 'utf8');
    expect(compiled).toContain('require("@tabula/client")');
    expect(compiled).not.toMatch(/^import /m);

    await writeFile(path.join(cjsApp, 'index.js'), MAIN_CJS);
    const ran = await run(process.execPath, ['index.js', t.url, t.adminToken], cjsApp);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const result = JSON.parse(ran.stdout) as { created: { id: string; name: string }; listed: string[]; notFound: unknown; invalid: unknown };
    expect(result.created.name).toBe('Packed');
    expect(result.listed).toContain('Packed');
    expect((await t.call('GET', `/v1/workspaces/${result.created.id}`)).json).toMatchObject({ id: result.created.id, name: 'Packed' });
    // The client is one ES module for both; require('@trpc/client') in CommonJS gives tRPC's
    // CommonJS copy, whose TRPCClientError is another class (docs/clients.md says to use TabulaError).
    const mapped = { name: 'TabulaError', fields: null, hasRequestId: true, isTRPCClientError: false };
    expect(result.notFound).toEqual({ ...mapped, code: 'NOT_FOUND', status: 404, message: expect.stringMatching(/not found/i) });
    expect(result.invalid).toEqual({ ...mapped, code: 'BAD_REQUEST', status: 400, message: expect.stringContaining('name') });
  });

  it('bundles for a browser from the installed package, with no Node built-in', async () => {
    await writeFile(
      path.join(app, 'browser.ts'),
      `import { createTabulaClient, TabulaError } from '@tabula/client';
export const tabula = createTabulaClient({ baseUrl: location.origin, token: 'tak_example' });
export const isTabulaError = (error: unknown) => error instanceof TabulaError;
`,
    );
    const result = await build({
      absWorkingDir: app,
      entryPoints: ['browser.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const outside = inputs.filter((input) => input !== 'browser.ts' && !/^node_modules\/(@tabula\/client|@trpc\/client|@trpc\/server|eventsource|eventsource-parser)\//.test(input));
    expect(outside).toEqual([]);
    expect(inputs).toContain('node_modules/@tabula/client/dist/index.js');
    // Everything is inside the bundle: no import left for the browser to resolve, node: or otherwise.
    const [output] = result.outputFiles;
    expect(Object.values(result.metafile.outputs).flatMap((entry) => entry.imports)).toEqual([]);
    expect(output.text).not.toMatch(/\bnode:/);
    console.info(`browser bundle (minified): ${output.contents.byteLength} bytes`);
  });
});
