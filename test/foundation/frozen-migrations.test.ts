import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildConvertedSegments, type ConvertedEntry } from '../../src/migrations/frozen/20261122110000-log-segments.js';
import { referenceIndexStatements, searchIndexStatements as frozenSearchIndexStatements } from '../../src/migrations/frozen/20261125020000-search.js';
import { createIndexStatements, searchIndexStatements } from '../../src/modules/columns/column.ddl.js';
import { buildSegments, readSegment } from '../../src/modules/logs/log-segment.js';
import type { ColumnDef } from '../../src/modules/tables/table-def.js';

/*
 * Migrations do not import live module code: what an old migration needs is frozen beside it
 * (src/migrations/frozen/). These tests prove that each frozen copy agrees with the live code
 * today, for the inputs its migration has, so that a copy is never frozen wrong. When the live
 * code later changes on purpose, the frozen copy stays as it is: its comparison here is then
 * changed to one against the output recorded before the change.
 */

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 1, 10, 59, 59, 990);
const segmentIds = (index: number) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;

/** Old `request_log` rows: ids given, never a stream; several projects, hours, keys, latencies. */
function convertedEntries(): ConvertedEntry[] {
  const [p1, p2, key] = [randomUUID(), randomUUID(), randomUUID()];
  const durations = [0, 0.4, 1, 1.3, 2.5, 17, 999.9, 1000, 59_999, 60_000, 125_000];
  const entries: ConvertedEntry[] = [];
  for (let i = 0; i < 60; i++) {
    entries.push({
      id: randomUUID(),
      projectId: i % 7 === 3 ? p2 : p1,
      requestId: `req-${i}`,
      method: i % 5 === 0 ? 'POST' : 'GET',
      path: i % 4 === 0 ? '/v1/x?q=✓ "quoted" \\ \u0001' : `/v1/p/tables/${i}`,
      status: [200, 200, 404, 500, 201][i % 5],
      durationMs: durations[i % durations.length],
      apiKeyId: i % 3 === 0 ? null : key,
      accountId: i % 6 === 0 ? randomUUID() : null,
      ip: i % 2 === 0 ? '10.0.0.1' : null,
      userAgent: i % 9 === 0 ? null : 'ua/1.0',
      // Across the hour boundary and back (entries of one hand-over are not sorted).
      createdAt: T + (i % 11 === 0 ? -HOUR : 0) + i * 2,
    });
  }
  // More entries in one project and hour than a segment holds.
  const hour = T + 2 * HOUR;
  for (let i = 0; i < 4100; i++) {
    entries.push({
      id: randomUUID(),
      projectId: p1,
      requestId: `bulk-${i}`,
      method: 'GET',
      path: '/v1/p/tables',
      status: 200,
      durationMs: i % 40,
      apiKeyId: key,
      accountId: null,
      ip: null,
      userAgent: null,
      createdAt: hour + (i % 1000),
    });
  }
  return entries;
}

describe('frozen segment builder of Migration20261122110000_log_segments', () => {
  it('builds the same segments as the logs module, byte for byte, for entries with ids and without stream', async () => {
    const entries = convertedEntries();
    const frozen = await buildConvertedSegments(entries, segmentIds);
    const live = await buildSegments(entries, segmentIds);
    // Two projects over three hours (five segments), and 4,100 entries of one hour in two.
    expect(frozen.length).toBe(7);
    expect(JSON.stringify(frozen)).toBe(JSON.stringify(live));
  });

  it('writes segments that the logs module reads back, every entry with its id and fields', async () => {
    const entries = convertedEntries();
    const read = [];
    for (const segment of await buildConvertedSegments(entries)) {
      read.push(...(await readSegment(segment.id, Buffer.from(segment.z, 'base64'))).map((e) => ({ ...e, projectId: segment.projectId })));
    }
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(read.sort(byId)).toEqual([...entries].sort(byId));
  });
});

const column = (name: string, type: ColumnDef['type'], settings: ColumnDef['settings'] = {}): ColumnDef => ({ id: randomUUID(), name, type, settings });
const LOCALE_LISTS = [['en'], ['en', 'fr', 'de-CH'], ['pt-BR', 'es']];

describe('frozen index statements of Migration20261125020000_search', () => {
  it('are the columns module search indexes, for tables with and without localized and searchable columns', () => {
    const tables: ColumnDef[][] = [
      [column('title', 'text', { localized: true }), column('body', 'longtext'), column('n', 'integer')],
      [column('title', 'text'), column('slug', 'slug', { source: 'title' }), column('mail', 'email'), column('site', 'url', { localized: true })],
      [column('summary', 'longtext', { localized: true }), column('intro', 'text', { localized: true, unique: true })],
      [column('link', 'url'), column('tags', 'select', { options: ['a'], multiple: true }), column('author', 'reference', { table: randomUUID() })],
      [column('n', 'number'), column('when', 'datetime'), column('flag', 'boolean'), column('data', 'json')],
      [],
    ];
    for (const columns of tables) {
      for (const locales of LOCALE_LISTS) {
        const table = { id: randomUUID(), columns };
        // The live module retires a stale index by renaming it (dropped after the commit, so that
        // reads are not blocked); the migration dropped it. Which indexes go, and which are made, agree.
        const retiring = (statements: string[]) => statements.map((s) => s.replace(/loop execute format\([^;]*; end loop;/, 'loop <retire>; end loop;'));
        expect(retiring(frozenSearchIndexStatements(table, locales))).toEqual(retiring(searchIndexStatements(table, locales)));
      }
    }
  });

  it('are the columns module indexes and statistics of reference and file columns', () => {
    const table = randomUUID();
    const columns = [
      column('author', 'reference', { table: randomUUID() }),
      column('editors', 'reference', { table: randomUUID(), multiple: true }),
      column('owner', 'reference', { table: randomUUID(), unique: true, onDelete: 'cascade' }),
      column('cover', 'file'),
      column('gallery', 'file', { multiple: true }),
      column('document', 'file', { unique: true, required: true }),
    ];
    for (const c of columns) {
      for (const locales of LOCALE_LISTS) {
        const frozen = referenceIndexStatements(table, c);
        expect(frozen.length).toBeGreaterThan(0);
        expect(frozen).toEqual(createIndexStatements(table, c, locales));
      }
    }
  });

  it('refuse any other column type', () => {
    expect(() => referenceIndexStatements(randomUUID(), column('title', 'text'))).toThrow('not a reference or file column');
  });
});
