import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors } from './markdown.js';

/**
 * What comments and descriptions in the code cite is the project's own manual: `docs/<page>.md`,
 * with `#anchor` for a heading of that page. A reader of the repository can follow every such
 * citation, so each must name an existing page and heading, and none may cite a section of a
 * document outside the repository (the word SPEC followed by a section sign and a number).
 */

const root = path.resolve(import.meta.dirname, '../..');
/** Where code lives. test/docs is left out: its tests hold made-up links as data. */
const ROOTS = ['src', 'workers', 'admin/src', 'client', 'test', 'bench'];
const SKIPPED = new Set(['node_modules', 'dist', 'test/docs']);
const SOURCE = /\.(?:[cm]?[jt]s|tsx|css|html)$/;
/** A section sign after the word SPEC: a citation of the outside specification. */
const OUTSIDE_CITATION = /\bSPEC\s*§/;
const DOCS_CITATION = /\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (SKIPPED.has(entry.name) || SKIPPED.has(relative)) return [];
    if (entry.isDirectory()) return sourceFiles(relative);
    return SOURCE.test(entry.name) ? [relative] : [];
  });
}

const files = ROOTS.flatMap(sourceFiles).map((file) => ({ file, lines: readFileSync(path.join(root, file), 'utf8').split('\n') }));
const pageAnchors = new Map<string, Set<string> | null>();

/** The heading anchors of `docs/<page>`, or null when there is no such page. */
function anchorsOf(page: string): Set<string> | null {
  if (!pageAnchors.has(page)) {
    const file = path.join(root, 'docs', page);
    pageAnchors.set(page, existsSync(file) ? anchors(readFileSync(file, 'utf8')) : null);
  }
  return pageAnchors.get(page)!;
}

/** Why a citation of `docs/<page>#<anchor>` does not resolve, or null when it does. */
function brokenCitation(page: string, anchor: string | undefined): string | null {
  const found = anchorsOf(page);
  if (found === null) return `docs/${page} does not exist`;
  if (anchor !== undefined && !found.has(anchor)) return `docs/${page} has no heading #${anchor}`;
  return null;
}

describe('citations in the code', () => {
  it('reads the code it checks', () => {
    expect(files.map((f) => f.file)).toContain('src/server.ts');
    expect(files.map((f) => f.file)).toContain('admin/src/app.tsx');
    expect(files.filter((f) => f.file.startsWith('test/docs/'))).toEqual([]);
  });

  it('cite no section of a document outside the repository', () => {
    const outside = files.flatMap(({ file, lines }) =>
      lines.flatMap((line, i) => (OUTSIDE_CITATION.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(outside).toEqual([]);
  });

  it('name docs pages and headings that exist', () => {
    const broken = files.flatMap(({ file, lines }) =>
      lines.flatMap((line, i) =>
        [...line.matchAll(DOCS_CITATION)].flatMap(([cited, page, anchor]) => {
          const problem = brokenCitation(page, anchor);
          return problem === null ? [] : [`${file}:${i + 1}: ${cited}: ${problem}`];
        }),
      ),
    );
    expect(broken).toEqual([]);
  });

  it('finds the citations it checks', () => {
    const cited = files.flatMap(({ lines }) => lines.flatMap((line) => [...line.matchAll(DOCS_CITATION)].filter(([, , anchor]) => anchor)));
    expect(cited.length).toBeGreaterThan(100);
  });
});
