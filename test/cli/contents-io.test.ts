import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progress } from '../../src/cli/progress.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runBuilt } from '../helpers/child.js';
import { buildWorld, contentsPath, createTable, expectStatus, type Table, type World } from '../contents/fixture.js';

/** `npm run cli -- import|export` (docs/import-export.md#from-the-command-line) against a test database, as an operator runs them (its compiled entry point: see test/cli/cli.test.ts). */
let t: TestApi;
let w: World;
let table: Table;
let dir: string;
const cli = (...args: string[]) => runBuilt('src/cli/main.ts', args, { DATABASE_URL: t.db.url, LOG_LEVEL: 'warn' });

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(w, [
    { name: 'title', type: 'text', settings: { required: true } },
    { name: 'price', type: 'number' },
  ]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-cli-io-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await t?.close();
});

describe('cli import and export', () => {
  it('imports a file with progress on stderr, and refuses a wrong one naming its lines (exit 1, nothing written)', { timeout: 60_000 }, async () => {
    const file = path.join(dir, 'rows.ndjson');
    await writeFile(file, Array.from({ length: 300 }, (_, i) => JSON.stringify({ data: { title: `Row ${i}`, price: i } })).join('\n'));
    const run = await cli('import', w.projectId, table.key, file);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ imported: 300 });
    // Not a terminal: plain lines, the last one with the total.
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`^import ${table.key}: \\[#{24}\\] 100% 300 rows, [\\d,]+ rows/s, \\d+\\.\\d s$`));
    expect(expectStatus(await t.call('GET', contentsPath(w, table.id), { token: w.writeKey }), 200).pagination.total).toBe(300);

    const bad = path.join(dir, 'bad.csv');
    await writeFile(bad, 'title,price\nfine,1\n,2\nalso fine,cheap\n');
    const refused = await cli('import', w.projectId, table.id, bad);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/error: VALIDATION_ERROR: Validation failed: line 3: data.title, line 4: data.price\n {2}line 3: data.title: is required\n {2}line 4: data.price: /);
    expect(expectStatus(await t.call('GET', contentsPath(w, table.id), { token: w.writeKey }), 200).pagination.total).toBe(300);
  });

  it('exports to a file as the API does, and to stdout', { timeout: 60_000 }, async () => {
    const file = path.join(dir, 'out.csv');
    const sort = '[{"i":"price","o":"asc"}]';
    const run = await cli('export', w.projectId, table.key, file, '--sort', sort, '--fields', 'title,price');
    expect(run.code, run.stderr).toBe(0);
    const api = await fetch(`${t.url}${contentsPath(w, table.id)}/export?format=csv&sort=${encodeURIComponent(sort)}&fields=title,price`, { headers: { authorization: `Bearer ${w.writeKey}` } });
    expect(await readFile(file, 'utf8')).toBe(await api.text());
    const stdout = await cli('export', w.projectId, table.key, '--filter', '[{"i":"price","w":"lt","v":2}]', '--sort', sort, '--fields', 'price');
    expect(stdout.stdout.trim().split('\n').map((line) => JSON.parse(line).data)).toEqual([{ price: 0 }, { price: 1 }]);
  });

  it('escapes spreadsheet formulas in CSV as the API does, unless --escape-formulas false', { timeout: 60_000 }, async () => {
    const formulas = await createTable(w, [{ name: 'title', type: 'text' }]);
    expectStatus(await t.call('POST', contentsPath(w, formulas.id), { token: w.writeKey, body: { data: { title: '=HYPERLINK("x")' } } }), 201);
    const escaped = path.join(dir, 'escaped.csv');
    const raw = path.join(dir, 'raw.csv');
    expect((await cli('export', w.projectId, formulas.key, escaped, '--fields', 'title')).code).toBe(0);
    expect((await cli('export', w.projectId, formulas.key, raw, '--fields', 'title', '--escape-formulas', 'false')).code).toBe(0);
    const api = await fetch(`${t.url}${contentsPath(w, formulas.id)}/export?format=csv&fields=title`, { headers: { authorization: `Bearer ${w.writeKey}` } });
    expect(await readFile(escaped, 'utf8')).toBe(await api.text());
    expect((await readFile(escaped, 'utf8')).split('\r\n')[1]).toMatch(/^[0-9a-f-]{36},"'=HYPERLINK\(""x""\)"$/);
    expect((await readFile(raw, 'utf8')).split('\r\n')[1]).toMatch(/^[0-9a-f-]{36},"=HYPERLINK\(""x""\)"$/);
    const wrong = await cli('export', w.projectId, formulas.key, raw, '--escape-formulas', 'no');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--escape-formulas must be true or false/);
  });

  it('answers usage errors with exit 2', async () => {
    const [missing, format, nofile] = await Promise.all([cli('import', w.projectId), cli('import', w.projectId, 't', 'x.txt', '--format', 'xml'), cli('import', w.projectId, 't', path.join(dir, 'nope.csv'))]);
    expect([missing.code, format.code, nofile.code]).toEqual([2, 2, 2]);
    expect(missing.stderr).toMatch(/^error: <table> <file> required/);
  });
});

describe('progress', () => {
  it('redraws one line with a bar on a terminal', () => {
    const written: string[] = [];
    let clock = 0;
    const stream = { isTTY: true, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
    const shown = progress('import posts', stream, () => clock);
    clock = 500;
    shown.update(1000, 0.5);
    clock = 1000;
    shown.update(1000, 1);
    shown.done();
    expect(written).toEqual([
      '\rimport posts: [############------------]  50% 1,000 rows, 2,000 rows/s, 0.5 s\u001b[K',
      '\rimport posts: [########################] 100% 2,000 rows, 2,000 rows/s, 1.0 s\u001b[K',
      '\rimport posts: [########################] 100% 2,000 rows, 2,000 rows/s, 1.0 s\u001b[K\n',
    ]);
  });
});
