import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks } from './markdown.js';

/**
 * The README's front door: the section before the first shell block promises how many commands
 * there are, and the block holds exactly those (a new user counted three under "Two commands").
 */

const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

describe('README front door', () => {
  const [first] = codeBlocks(readme).filter((block) => block.lang === 'sh');
  const heading = readme.split('\n').slice(0, first.line).filter((line) => line.startsWith('## ')).at(-1)!;
  const commands = first.code.split('\n').map((line) => line.replace(/#.*$/, '').trim()).filter(Boolean);

  it('its first shell block holds one command to run Tabula and one to test it, as its heading says', () => {
    expect(heading).toBe('## One command to run, one to test');
    expect(commands).toEqual(['npm start', 'npm test']);
  });

  it('says to install the dependencies first, and CI tests with the same npm test', () => {
    const section = readme.slice(readme.indexOf(heading), readme.indexOf('```sh'));
    expect(section).toContain('`npm install`');
    const ci = readFileSync(path.join(root, '.ci/run'), 'utf8');
    expect(ci.split('\n')).toContain('npm test </dev/null');
  });
});
