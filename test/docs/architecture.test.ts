import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md describes the tree as it is: its lists of SQL homes, modules and contents
 * rooms are checked against the folders, so that a new file or folder without its line fails
 * here (the links test checks the other way: every path the page names exists).
 */
const root = path.resolve(import.meta.dirname, '../..');
const page = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(rel) : [rel];
  });
}
const foldersOf = (dir: string) =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** The first cell of each row of the table that follows `heading`. */
function firstCells(heading: string): string {
  const start = page.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const table = page.slice(start).split('\n\n').find((block) => block.startsWith('|'));
  return (table ?? '')
    .split('\n')
    .map((row) => row.split('|')[1] ?? '')
    .join('\n');
}

describe('docs/architecture.md', () => {
  it('names every *.sql.ts of the tree in its table of SQL homes', () => {
    const sqlFiles = filesUnder('src').filter((file) => file.endsWith('.sql.ts') && !file.startsWith('src/migrations/'));
    expect(sqlFiles.length).toBeGreaterThan(20);
    const table = firstCells('| file | statements |');
    expect(sqlFiles.filter((file) => !table.includes(`\`${file}\``))).toEqual([]);
  });

  it('names every module of src/modules in its table of modules', () => {
    const modules = foldersOf('src/modules');
    const table = firstCells('### Modules');
    expect(modules.filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });

  it('names every room of the contents module', () => {
    const rooms = foldersOf('src/modules/contents');
    expect(rooms.length).toBeGreaterThan(5);
    const line = page.split('\n').find((row) => row.startsWith('| `contents` |')) ?? '';
    expect(rooms.filter((room) => !line.includes(`\`${room}/\``))).toEqual([]);
  });

  it('names every part of the events module', () => {
    const section = page.slice(page.indexOf('## Events'), page.indexOf('## The `/v1` layer'));
    const parts = filesUnder('src/modules/events')
      .map((file) => path.basename(file))
      .filter((name) => !name.endsWith('.sql.ts') && !name.endsWith('.router.ts') && !name.endsWith('.schema.ts'));
    expect(parts.filter((name) => !section.includes(`\`${name}\``) && !section.includes(`${name.replace(/\.ts$/, '')}.ts`))).toEqual([]);
  });
});
