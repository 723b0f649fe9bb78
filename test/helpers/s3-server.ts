import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { CreateBucketCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/storage/s3.js';

/** s3rver's built-in account. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const MAIN = path.join(import.meta.dirname, 's3rver-main.ts');

export interface S3TestServer {
  bucket: string;
  endpoint: string;
  /** The S3_ variables that point an API at this bucket (STORAGE_DRIVER is the caller's choice). */
  env: Record<string, string>;
  client: S3Client;
  /** Every key in the bucket under `prefix`, sorted. */
  keys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A real S3-protocol server (s3rver, in a child process: see s3rver-main.ts) on an ephemeral
 * port of 127.0.0.1, storing in a fresh temporary directory, with one empty bucket (bucket names
 * are 3-63 characters).
 */
export async function startS3Server(bucket = 'tabula-files'): Promise<S3TestServer> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'tabula-s3-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', MAIN, directory], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const env = {
    S3_BUCKET: bucket,
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  };
  const client = createS3Client({ bucket, endpoint, region: 'us-east-1', forcePathStyle: true, ...CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    bucket,
    endpoint,
    env,
    client,
    keys: async (prefix = '') => {
      const keys: string[] = [];
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      }
      return keys.sort();
    },
    close: async () => {
      client.destroy();
      child.kill('SIGTERM');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
