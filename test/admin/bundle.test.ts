import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * The console's size budget (docs/console.md#size-and-speed), on the build the API serves
 * (admin/dist, made by `npm run build --workspace admin`): the first page, everything index.html
 * loads before any page is chosen, is at most 200 KB gzipped; every page of a project is a chunk
 * of its own, loaded on first use.
 */
const DIST = 'admin/dist';
const BUDGET = 200 * 1024;
const LAZY_PAGES = ['Tables', 'ContentsList', 'ContentEditor', 'ApiKeys', 'Webhooks', 'Logs', 'Metrics', 'Members', 'Roles', 'FileLibrary', 'Categories', 'Variables', 'Translations', 'TableIo', 'SchemaPage'];

describe('console bundle', () => {
  it('the first page is at most 200 KB gzipped and every project page loads lazily', () => {
    expect(existsSync(`${DIST}/index.html`), 'build the console first: npm run build --workspace admin').toBe(true);
    const html = readFileSync(`${DIST}/index.html`, 'utf8');
    const first = [...html.matchAll(/(?:src|href)="\/admin\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(first.some((f) => f.endsWith('.js'))).toBe(true);
    const gzipped = first.reduce((sum, file) => sum + gzipSync(readFileSync(`${DIST}/${file}`)).length, 0);
    console.log(`console first page: ${first.length} files, ${(gzipped / 1024).toFixed(1)} KB gzipped`);
    expect(gzipped).toBeLessThanOrEqual(BUDGET);
    const entry = readFileSync(`${DIST}/${first.find((f) => f.startsWith('assets/index-') && f.endsWith('.js'))}`, 'utf8');
    for (const page of LAZY_PAGES) {
      expect(first.filter((f) => f.startsWith(`assets/${page}-`)), `${page} is loaded by the first page`).toEqual([]);
      // A dynamic import of the page's own chunk (not a message with the whole file on failure).
      expect(new RegExp('import\\([`\'"]\\./' + page + '-[\\w-]+\\.js[`\'"]\\)').test(entry), `${page} is imported lazily`).toBe(true);
    }
  });
});
