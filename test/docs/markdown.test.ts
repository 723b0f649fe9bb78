import { execFile } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchors, callsCurl, codeBlocks, curlBlocks, danglingNotRunMarkers, links, prepareBlock, slug, strayCurlBlocks, type Substitutions } from './markdown.js';

/** The docs tests' own machinery: the markdown reader and the bash harness that checks answers. */

const subs: Substitutions = {
  provided: ['T', 'API'],
  replace: [
    ['http://127.0.0.1:3000', 'http://127.0.0.1:4567'],
    ['https://example.com/hooks/tabula', 'http://127.0.0.1:4568/hook'],
  ],
};
const fence = '```';

describe('codeBlocks and curlBlocks', () => {
  const page = [
    '# Page',
    '',
    `${fence}sh`,
    'npm install',
    fence,
    '',
    '<!-- not-run: needs docker -->',
    '',
    `${fence}sh`,
    'docker run x && curl -s http://x/healthz',
    fence,
    `${fence}sh`,
    '# curl in a comment only',
    'echo hi',
    fence,
    `${fence}ts`,
    "await fetch('x') // not curl",
    fence,
    `${fence}bash`,
    'curl -s x',
    fence,
  ].join('\n');

  it('finds fenced blocks with their language, line and not-run reason', () => {
    const blocks = codeBlocks(page);
    expect(blocks.map((b) => [b.lang, b.line, b.notRun])).toEqual([
      ['sh', 3, null],
      ['sh', 9, 'needs docker'],
      ['sh', 12, null],
      ['ts', 16, null],
      ['bash', 19, null],
    ]);
    expect(blocks[1].code).toBe('docker run x && curl -s http://x/healthz');
  });

  it('selects sh blocks that call curl (not in comments), and reports curl in other shell dialects', () => {
    expect(curlBlocks(page).map((b) => b.line)).toEqual([9]);
    expect(strayCurlBlocks(page).map((b) => b.line)).toEqual([19]);
    expect(callsCurl('X=$(curl -s a | jq .id)')).toBe(true);
    expect(callsCurl('echo curl-like')).toBe(false);
    expect(callsCurl('npx vitest run test/docs   # every curl example runs')).toBe(false);
  });

  it('refuses an unclosed block and a not-run marker without reason; reports a marker above no curl block', () => {
    expect(() => codeBlocks(`${fence}sh\ncurl x\n`)).toThrow(/never closed/);
    expect(() => codeBlocks(`<!-- not-run: -->\n${fence}sh\ncurl x\n${fence}`)).toThrow(/needs a reason/);
    expect(danglingNotRunMarkers(`<!-- not-run: why -->\n\n${fence}sh\necho hello\n${fence}`)).toEqual([1]);
    expect(danglingNotRunMarkers(page)).toEqual([]);
  });
});

describe('prepareBlock', () => {
  it('drops the export lines of provided variables and keeps the others', () => {
    const { code } = prepareBlock('export T=tat_…   # the token\nexport API=http://127.0.0.1:3000/v1\nexport OTHER=1', subs);
    expect(code.split('\n')).toEqual([': # T is provided by the test harness', ': # API is provided by the test harness', 'export OTHER=1']);
  });

  it('points the documented addresses at the test servers', () => {
    expect(prepareBlock('curl -s http://127.0.0.1:3000/healthz', subs).code).toBe('curl -s http://127.0.0.1:4567/healthz');
    expect(prepareBlock(`-d '{"url":"https://example.com/hooks/tabula"}'`, subs).code).toBe(`-d '{"url":"http://127.0.0.1:4568/hook"}'`);
  });

  it('prefixes a curl command marked "# → NNN" (on its last line) with its expected status', () => {
    const block = ['curl -s $API/a \\', "  -d '{}'      # → 409", 'curl -s $API/b   # → 404', 'curl -s $API/c'].join('\n');
    const prepared = prepareBlock(block, subs);
    expect(prepared.expected).toEqual([409, 404]);
    expect(prepared.code.split('\n')).toEqual([
      'TABULA_EXPECT=409 curl -s $API/a \\',
      "  -d '{}'      # → 409",
      'TABULA_EXPECT=404 curl -s $API/b   # → 404',
      'curl -s $API/c',
    ]);
  });

  it('refuses a status marker on a command that is not a plain curl, or on a comment line', () => {
    expect(() => prepareBlock('X=$(curl -s $API/a)   # → 404', subs)).toThrow(/does not start with curl/);
    expect(() => prepareBlock('# → 404', subs)).toThrow(/end of the curl command/);
  });
});

describe('anchors and links', () => {
  it('makes GitHub anchors', () => {
    expect(slug('Five-minute walk-through (curl)')).toBe('five-minute-walk-through-curl');
    expect(slug('Any language: the OpenAPI document')).toBe('any-language-the-openapi-document');
    expect(slug('`withCount` and totals')).toBe('withcount-and-totals');
    expect([...anchors('# A\n## B\n```sh\n# not a heading\n```\n## B')]).toEqual(['a', 'b', 'b-1']);
  });

  it('lists inline links outside code', () => {
    const text = 'See [x](docs/a.md#b) and `[y](nope.md)`.\n```\n[z](nope.md)\n```\n[w](https://e.com "t")';
    expect(links(text).map((l) => l.target)).toEqual(['docs/a.md#b', 'https://e.com']);
  });
});

describe('harness.sh', () => {
  let server: http.Server;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    // Answers with the status named in the path: /status/404 → 404.
    server = http.createServer((req, res) => {
      res.writeHead(Number(req.url!.split('/')[2]) || 200, { 'content-type': 'application/json' });
      res.end('{"id":"abc"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-harness-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs `code` after the harness; the exit code, stderr and the curl log. */
  async function run(code: string) {
    const log = path.join(dir, 'log');
    await writeFile(log, '');
    const script = `source '${path.join(import.meta.dirname, 'harness.sh')}'\nTABULA_BLOCK=0\n${prepareBlock(code, subs).code}\n`;
    return new Promise<{ code: number; stderr: string; stdout: string; log: string }>((resolve) => {
      execFile('bash', ['--norc', '-c', script], { env: { PATH: process.env.PATH, HOME: dir, TABULA_CURL_LOG: log, B: base } }, async (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr, log: await readFile(log, 'utf8') });
      });
    });
  }

  it('passes 2xx answers and keeps the body on stdout for pipes', async () => {
    const result = await run('ID=$(curl -s $B/status/201 | jq -r .id)\necho "id=$ID"');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('id=abc\n');
    expect(result.log).toBe(`0\t201\t2xx\tcurl -s ${base}/status/201\n`);
  });

  it('fails on a 4xx the block does not declare, also inside a command substitution', async () => {
    const plain = await run('curl -s $B/status/404\necho after');
    expect(plain.code).toBe(1);
    expect(plain.stdout).not.toContain('after');
    expect(plain.stderr).toContain('curl answered 404 where the docs expect 2xx');
    const substituted = await run('ID=$(curl -s $B/status/409 | jq -r .id)\necho after');
    expect(substituted.code).not.toBe(0);
    expect(substituted.stdout).not.toContain('after');
  });

  it('accepts exactly the declared status, and fails when another one comes', async () => {
    expect((await run('curl -s $B/status/409   # → 409\necho after')).stdout).toContain('after');
    const other = await run('curl -s $B/status/200   # → 409');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('curl answered 200 where the docs expect 409');
  });

  it('fails when nothing answers', async () => {
    const result = await run('curl -s http://127.0.0.1:1/nothing');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('curl exited 7');
  });

  it('stops at the first failing command of a block (set -e) and on unset variables (set -u)', async () => {
    expect((await run('false\necho after')).stdout).toBe('');
    expect((await run('curl -s $B/status/200/$UNSET')).code).not.toBe(0);
  });
});
