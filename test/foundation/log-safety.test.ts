import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { boundLine, maskPasswords, MAX_LINE_BYTES, serializeError } from '../../src/shared/log-safety.js';
import { createLogger } from '../../src/shared/logger.js';
import { logCapture } from '../helpers/log-capture.js';

function capture() {
  const { lines, stream } = logCapture();
  return { lines, logger: createLogger('info', 'test', { destination: stream }) };
}

describe('log lines', () => {
  it('an error from a failed pg connection is logged as a few fields: no client, no socket, no password', async () => {
    const client = new pg.Client({ connectionString: 'postgres://app:s3cret-pass@127.0.0.1:1/tabula', connectionTimeoutMillis: 2000 });
    const error = await client.connect().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // What drivers and pools attach to their errors: the client with its connection parameters.
    Object.assign(error as object, { client, connectionString: 'postgres://app:s3cret-pass@127.0.0.1:1/tabula' });
    const { lines, logger } = capture();
    logger.error({ err: error }, 'database unreachable');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]);
    expect(Object.keys(record.err).sort()).toEqual(['code', 'message', 'stack', 'type']);
    expect(record.err).toMatchObject({ type: 'Error', code: 'ECONNREFUSED' });
    expect(lines[0]).not.toContain('s3cret');
    expect(Buffer.byteLength(lines[0])).toBeLessThan(MAX_LINE_BYTES);
  });

  it('a PostgreSQL error keeps its SQL state and fields; causes are followed', () => {
    const database = Object.assign(new Error('duplicate key value violates unique constraint "u"'), { severity: 'ERROR', code: '23505', detail: 'Key (code)=(a) already exists.', table: 'contents', length: 100 });
    const serialized = serializeError(new Error('write failed', { cause: database })) as Record<string, Record<string, unknown>>;
    expect(serialized.cause).toMatchObject({ sqlState: '23505', severity: 'ERROR', detail: 'Key (code)=(a) already exists.', table: 'contents' });
    expect(serialized.cause).not.toHaveProperty('length');
  });

  it('passwords in URLs and key=value strings are masked', () => {
    expect(maskPasswords('connect postgres://u:p%40ss@h:5432/db failed')).toBe('connect postgres://u:***@h:5432/db failed');
    expect(maskPasswords('host=h password=secret user=u')).toBe('host=h password=*** user=u');
    expect(maskPasswords('https://example.com/a:b@c')).toBe('https://example.com/a:b@c');
  });

  it('no line is longer than 2 KB, and a cut line is still one JSON record', () => {
    const { lines, logger } = capture();
    logger.warn({ detail: 'x'.repeat(50_000), nested: { list: Array.from({ length: 500 }, (_, i) => `item ${i}`) } }, 'y'.repeat(10_000));
    logger.error({ err: new Error('z'.repeat(20_000)) }, 'big error');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LINE_BYTES);
      expect(JSON.parse(line)).toMatchObject({ truncated: true });
    }
    expect(JSON.parse(lines[1])).toMatchObject({ level: 50, msg: 'big error' });
    const short = '{"level":30,"msg":"fine"}\n';
    expect(boundLine(short)).toBe(short);
  });
});
