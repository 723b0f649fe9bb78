import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../src/node-version.mjs';
import { builtEntry, root } from '../helpers/child.js';

const run = promisify(execFile);

/** A Node.js older than Tabula needs, on PATH or where distributions put theirs (the system's node), with its version; null when there is none. */
function findOldNode(): { node: string; version: string } | null {
  const candidates = [...(process.env.PATH ?? '').split(':').filter(Boolean).map((dir) => path.join(dir, 'node')), '/usr/bin/node', '/usr/local/bin/node'];
  for (const node of new Set(candidates)) {
    try {
      const version = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (nodeVersionProblem(version)) return { node, version };
    } catch {
      // Not there, or not a Node.js that runs.
    }
  }
  return null;
}

const oldNode = findOldNode();

describe('Node.js version check', () => {
  it('refuses versions before 22.19 with what to install, and accepts 22.19 and later', () => {
    for (const old of ['20.19.0', '22.18.9', '18.20.4', '21.99.0']) {
      const problem = nodeVersionProblem(old);
      expect(problem).toContain('Tabula needs Node.js >= 22.19');
      expect(problem).toContain(`this is Node.js ${old}`);
    }
    for (const fine of ['22.19.0', '22.20.1', '24.11.0', '25.0.0']) expect(nodeVersionProblem(fine)).toBeNull();
  });

  it('runs before the entry point: with an old process.versions.node, npm start stops with that message and exit 1', async () => {
    // The preload of every npm script, with the version faked the way an old Node.js reports it.
    const fake = 'data:text/javascript,Object.defineProperty(process.versions, "node", { value: "20.19.0" })';
    const outcome = await run(process.execPath, ['--import', fake, '--import', './src/check-node.mjs', '--import', 'tsx', 'src/main.ts'], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trim()).toBe(nodeVersionProblem('20.19.0'));
  });

  it('every npm script that starts Tabula preloads the check first, before tsx: the plain JavaScript source, or its copy in dist/', async () => {
    const { scripts } = (await import(path.join(root, 'package.json'), { with: { type: 'json' } })).default as { scripts: Record<string, string> };
    for (const name of ['start', 'cli']) expect(scripts[name]).toMatch(/^(exec )?node --import \.\/src\/check-node\.mjs --import tsx /);
    // The compiled check itself is run with a faked old version in compiled.test.ts.
    for (const name of ['start:api', 'start:worker']) expect(scripts[name]).toContain('exec node --import ./dist/src/check-node.js');
  });

  it.skipIf(!oldNode)(
    `an old Node.js without the dependencies installed (a failed npm install): every npm script that starts Tabula prints the version message, no stack trace${oldNode ? '' : ' (skipped: no Node.js older than 22.19 found on PATH or in /usr/bin or /usr/local/bin)'}`,
    async () => {
      const { node, version } = oldNode!;
      // A clone without node_modules: package.json, the sources and the compiled preload, in a
      // directory with no node_modules above it, so that tsx cannot be found.
      const clone = await mkdtemp(path.join(os.tmpdir(), 'tabula-old-node-'));
      try {
        for (const entry of ['package.json', 'src']) await cp(path.join(root, entry), path.join(clone, entry), { recursive: true });
        await mkdir(path.join(clone, 'dist'));
        await cp(path.dirname(builtEntry('src/api.ts')), path.join(clone, 'dist/src'), { recursive: true });
        const { scripts } = JSON.parse(await readFile(path.join(clone, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
        // The old node first on PATH, as on the machine of someone who has not installed a newer one.
        const env = { PATH: `${path.dirname(node)}:/usr/bin:/bin`, HOME: clone, LANG: 'C.UTF-8' };
        for (const name of ['start', 'cli', 'start:api', 'start:worker']) {
          const outcome = await run('sh', ['-c', scripts[name]], { cwd: clone, env }).then(
            ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
            (error: { code: number; stdout: string; stderr: string }) => error,
          );
          expect(outcome.stderr.trim(), name).toBe(nodeVersionProblem(version));
          expect(outcome.code, name).toBe(1);
        }
      } finally {
        await rm(clone, { recursive: true, force: true });
      }
    },
  );
});
