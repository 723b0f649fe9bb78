import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../src/node-version.js';
import { root } from '../helpers/child.js';

const run = promisify(execFile);

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
    const outcome = await run(process.execPath, ['--import', fake, '--import', 'tsx', '--import', './src/check-node.ts', 'src/main.ts'], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trim()).toBe(nodeVersionProblem('20.19.0'));
  });

  it('every npm script that starts Tabula preloads the check: the source under tsx, or its compiled form from dist/', async () => {
    const { scripts } = (await import(path.join(root, 'package.json'), { with: { type: 'json' } })).default as { scripts: Record<string, string> };
    for (const name of ['start', 'cli']) expect(scripts[name]).toContain('--import tsx --import ./src/check-node.ts');
    // The compiled check itself is run with a faked old version in compiled.test.ts.
    for (const name of ['start:api', 'start:worker']) expect(scripts[name]).toContain('exec node --import ./dist/src/check-node.js');
  });
});
