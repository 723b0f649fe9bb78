import { execFile } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The docs harness's `curl` function (harness.sh) against a small local server: what a page's
 * run shows when an answer is not the documented one. The examples often pipe the body away
 * (`ROW=$(curl … | jq -r .id)`), so the body of an unexpected answer must reach stderr, which
 * the examples test prints when a page fails.
 */

const HARNESS = path.join(import.meta.dirname, 'harness.sh');
const VALIDATION = '{"error":{"code":"VALIDATION_ERROR","message":"Validation failed: data.sku","details":[{"field":"data.sku","message":"why"}]}}';

let server: http.Server;
let url: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-harness-'));
  server = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/invalid') res.writeHead(422, { 'content-type': 'application/json' }).end(VALIDATION);
    else res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"r1"}\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Runs `script` after sourcing the harness, as the examples test does; never rejects on a failure. */
function bash(script: string): Promise<{ code: number; stdout: string; stderr: string; log: string }> {
  const log = path.join(dir, 'curl-log');
  const env = { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8', URL: url, TABULA_CURL_LOG: log, TABULA_BLOCK: '0' };
  return new Promise((resolve) => {
    execFile('bash', ['--norc', '-c', `source '${HARNESS}'\n${script}`], { cwd: dir, env }, async (error, stdout, stderr) => {
      const code = error ? Number(error.code) : 0;
      resolve({ code, stdout, stderr, log: await readFile(log, 'utf8').catch(() => '') });
    });
  });
}

describe('docs harness curl', () => {
  it('an unexpected answer whose body is piped away fails the block and shows the body on stderr', async () => {
    const run = await bash('ID=$(curl -s -X POST "$URL/invalid" -d "{}" | cat)\necho "after: $ID"');
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('after:');
    expect(run.stderr).toContain(`curl answered 422 where the docs expect 2xx: curl -s -X POST ${url}/invalid -d {}`);
    expect(run.stderr).toContain(VALIDATION);
    expect(run.log).toBe(`0\t422\t2xx\tcurl -s -X POST ${url}/invalid -d {}\n`);
  });

  it('a declared status passes, and the body reaches stdout unchanged, trailing newlines included', async () => {
    const declared = await bash('TABULA_EXPECT=422 curl -s "$URL/invalid"');
    expect(declared).toMatchObject({ code: 0, stdout: VALIDATION, stderr: '' });

    const created = await bash('curl -s -X POST "$URL/rows" | od -c | head -2');
    expect(created.code).toBe(0);
    expect(created.stdout.replace(/\s+/g, ' ')).toContain('{ " i d " : " r 1 " } \\n \\n');
  });

  it('-o writes the body to the file and nothing to stdout', async () => {
    const run = await bash('curl -s "$URL/rows" -o row.json');
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await readFile(path.join(dir, 'row.json'), 'utf8')).toBe('{"id":"r1"}\n\n');
  });

  it('a refused connection fails the block with curl\'s exit code', async () => {
    const run = await bash('curl -s http://127.0.0.1:1/nothing');
    expect(run.code).toBe(7);
    expect(run.stderr).toContain('curl exited 7: curl -s http://127.0.0.1:1/nothing');
  });
});
