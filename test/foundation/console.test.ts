import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { TOKEN_HINT, printBanner } from '../../src/process.js';
import { startApi } from '../../src/server.js';
import { createLogger, logFormat } from '../../src/shared/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Console output: JSON or readable logs, and the start-up banner. */

/** A logger writing into memory, and the lines it wrote so far. */
function capture(format: 'json' | 'pretty') {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk) => (text += chunk));
  const logger = createLogger('info', 'tabula-test', { format, destination: stream });
  return { logger, lines: () => text.split('\n').filter(Boolean) };
}

let db: TestDatabase | undefined;
afterAll(() => db?.drop());

describe('log format', () => {
  it('is readable for a developer at a terminal, JSON in production, when piped, or when told', () => {
    expect(logFormat({ NODE_ENV: 'development' }, true)).toBe('pretty');
    expect(logFormat({ NODE_ENV: 'development' }, false)).toBe('json');
    expect(logFormat({ NODE_ENV: 'production' }, true)).toBe('json');
    expect(logFormat({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(logFormat({ NODE_ENV: 'development', LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/^Invalid configuration: LOG_FORMAT: /);
  });

  it('JSON lines carry the fields; secrets are redacted', () => {
    const { logger, lines } = capture('json');
    logger.info({ projectId: 'p1', req: { headers: { authorization: 'Bearer tat_secret' } } }, 'hello');
    const line = JSON.parse(lines()[0]);
    expect(line).toMatchObject({ level: 30, name: 'tabula-test', msg: 'hello', projectId: 'p1' });
    expect(line.req.headers.authorization).toBe('[redacted]');
  });

  it('pretty lines are plain text with level, name and message, and redacted too', () => {
    const { logger, lines } = capture('pretty');
    logger.warn({ token: 'tat_secret' }, 'careful');
    const text = lines().join('\n');
    expect(() => JSON.parse(lines()[0])).toThrow();
    expect(lines()[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN \(tabula-test\): careful$/);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('tat_secret');
  });
});

describe('start-up banner', () => {
  it('names the console, REST, docs and tRPC URLs, and where the admin token is', { timeout: 60_000 }, async () => {
    db = await createTestDatabase();
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    const banner = async () => {
      const { logger, lines } = capture('json');
      const api = await startApi(config, db!.url, logger);
      try {
        printBanner(logger, api);
        const records = lines().map((line) => JSON.parse(line));
        return { api, banner: records.find((r) => r.msg.startsWith('Tabula on ')), records };
      } finally {
        await api.close(1000);
      }
    };

    // An empty database and no ADMIN_*: the first account's token was printed, the banner says so.
    const first = await banner();
    expect(first.api.printedAdminToken).toBe(true);
    const url = first.api.url;
    expect(first.banner).toMatchObject({ url, console: `${url}/admin/`, rest: `${url}/v1`, docs: `${url}/docs`, trpc: `${url}/trpc` });
    expect(first.banner.msg).toBe(`Tabula on ${url}  console ${url}/admin/  REST ${url}/v1  docs ${url}/docs  tRPC ${url}/trpc  admin token: printed above, shown once`);
    expect(first.records.some((r) => r.msg.includes('created the first account'))).toBe(true);

    // Later start-ups print no token: the banner points at the CLI instead.
    const second = await banner();
    expect(second.api.printedAdminToken).toBe(false);
    expect(second.banner.msg).toContain(`a token: ${TOKEN_HINT}`);
    expect(second.banner.msg.split('\n')).toHaveLength(1);
  });
});
