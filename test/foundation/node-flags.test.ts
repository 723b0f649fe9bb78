import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_NODE_FLAGS } from '../../src/node-flags.js';
import { root } from '../helpers/child.js';

/** The API's Node.js options (src/node-flags.ts) are on every command that starts it. */
describe('API Node.js options', () => {
  it('npm start, npm run start:api and the Docker image start the API with them', async () => {
    const { scripts } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const dockerCmd = (await readFile(path.join(root, 'Dockerfile'), 'utf8')).split('\n').find((line) => line.startsWith('CMD '));
    const command = JSON.parse(dockerCmd!.slice(4)) as string[];
    expect(command.at(-1)).toBe('dist/src/api.js');
    for (const flag of API_NODE_FLAGS) {
      for (const name of ['start', 'start:api']) expect(scripts[name].split(' ').slice(0, -1), name).toContain(flag);
      expect(command.slice(0, -1), 'Dockerfile CMD').toContain(flag);
    }
  });
});
