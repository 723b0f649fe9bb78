import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, links } from './markdown.js';

/**
 * Every relative link of the README, the changelog and the docs pages resolves: the file exists
 * and, when the link names a heading (`page.md#heading`), the page has that heading.
 */

const root = path.resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', 'CHANGELOG.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const text = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Why a relative link from `page` does not resolve, or null when it does. */
function brokenLink(page: string, target: string): string | null {
  const [file, anchor] = target.split('#', 2);
  const resolved = file ? path.normalize(path.join(path.dirname(page), decodeURIComponent(file))) : page;
  if (resolved.startsWith('..')) return 'points outside the repository';
  if (!existsSync(path.join(root, resolved))) return `${resolved} does not exist`;
  if (anchor === undefined) return null;
  if (!resolved.endsWith('.md')) return `${resolved} is not a markdown page, it has no #${anchor}`;
  return anchors(text(resolved)).has(anchor) ? null : `${resolved} has no heading #${anchor}`;
}

/** Whether a repository path exists; a `*` in its last part matches any characters. */
function pathExists(name: string): boolean {
  if (!name.includes('*')) return existsSync(path.join(root, name));
  const dir = path.dirname(name);
  const escape = (part: string) => part.replace(/[.+?^$()|[\]\\{}]/g, '\\$&');
  const pattern = new RegExp('^' + path.basename(name).split('*').map(escape).join('.*') + '$');
  return existsSync(path.join(root, dir)) && readdirSync(path.join(root, dir)).some((entry) => pattern.test(entry));
}

describe('docs links', () => {
  it.each(PAGES)('%s: every relative link resolves', (page) => {
    const broken = links(text(page))
      .filter((link) => !/^[a-z]+:/i.test(link.target))
      .map((link) => ({ target: link.target, problem: brokenLink(page, link.target) }))
      .filter((link) => link.problem !== null);
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s: every repository path it names in code spans exists', (page) => {
    // `test/…`, `src/…` and the like: the tables of guarantees name the tests that prove them.
    const named = [...text(page).matchAll(/`((?:test|src|bench|examples|workers|docs)\/[^`\s<>]+)`/g)].map((m) => m[1]);
    expect(named.filter((name) => !pathExists(name))).toEqual([]);
  });

  it('links every docs page from the README', () => {
    const linked = new Set(links(text('README.md')).map((link) => link.target.split('#')[0]));
    const pages = PAGES.filter((page) => page.startsWith('docs/'));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});
