/**
 * The `s3` scenario (docs/performance.md#s3-storage): one file of 1 GiB uploaded through the API to STORAGE_DRIVER=s3
 * (s3rver in a child process), generated as it is sent (never on disk, never whole in memory),
 * then downloaded back. The API's resident memory is read from its own /metrics every 250 ms
 * throughout. Target: the API's RSS grows by less than 100 MB.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { startS3Server } from '../test/helpers/s3-server.js';
import { apiMemory, freePort, startChild, stopChild, type Fixture } from './setup.js';

export interface S3Result {
  bytes: number;
  /** The API's RSS once warmed up (one 8 MiB upload and download), before the big upload. */
  baselineRssMb: number;
  upload: TransferResult;
  download: TransferResult;
}

export interface TransferResult {
  seconds: number;
  mibPerSecond: number;
  peakRssMb: number;
  rssGrowthMb: number;
  /** The SHA-256 on the other side equals the one of the bytes sent. */
  sha256Matches: boolean;
}

const MiB = 2 ** 20;

export async function benchS3(options: { apiEnv: Record<string, string>; fixture: Fixture; bytes?: number; log: (line: string) => void }): Promise<S3Result> {
  const { apiEnv, fixture, log } = options;
  const bytes = options.bytes ?? 1024 * MiB;
  const s3 = await startS3Server('tabula-bench');
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const child = await startChild(
    'src/api.ts',
    {
      ...apiEnv,
      ...s3.env,
      PORT: String(port),
      STORAGE_DRIVER: 's3',
      FILES_MAX_BYTES: String(bytes),
      // Room for a gigabyte on a loaded machine; staged uploads must outlive it (default 1 h).
      REQUEST_TIMEOUT_MS: String(30 * 60 * 1000),
    },
    `${api}/healthz`,
  );
  try {
    const files = `${api}/v1/${fixture.projectId}/files`;
    log('s3: warming up with one 8 MiB upload and download');
    const warm = await upload(files, fixture.writeKey, 8 * MiB);
    await download(`${files}/${warm.id}/content`, fixture.writeKey);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const baseline = await rssMb(api);

    log(`s3: uploading ${bytes / MiB} MiB through the API (baseline RSS ${baseline.toFixed(0)} MB)`);
    const up = await sampled(api, () => upload(files, fixture.writeKey, bytes));
    const file = up.value;
    log(`s3: downloading it back`);
    const down = await sampled(api, () => download(`${files}/${file.id}/content`, fixture.writeKey));
    return {
      bytes,
      baselineRssMb: baseline,
      upload: transfer(bytes, up, baseline, file.sha256 === file.sent),
      download: transfer(bytes, down, baseline, down.value === file.sent),
    };
  } finally {
    await stopChild(child);
    await s3.close();
  }
}

function transfer(bytes: number, run: { seconds: number; peakRssMb: number }, baseline: number, sha256Matches: boolean): TransferResult {
  return { seconds: run.seconds, mibPerSecond: bytes / MiB / run.seconds, peakRssMb: run.peakRssMb, rssGrowthMb: run.peakRssMb - baseline, sha256Matches };
}

/** Runs `work` while reading the API's RSS every 250 ms; answers its value, duration and the peak. */
async function sampled<T>(api: string, work: () => Promise<T>) {
  let peak = await rssMb(api);
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rssMb(api));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const started = performance.now();
  try {
    const value = await work();
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, await rssMb(api));
    return { value, seconds, peakRssMb: peak };
  } finally {
    running = false;
    await sampler;
  }
}

const rssMb = async (api: string): Promise<number> => (await apiMemory(api)).rss / MiB;

/**
 * POSTs a multipart body whose `file` part is `size` pseudo-random bytes (a random MiB repeated),
 * written as the socket takes them; answers the created file and the SHA-256 of what was sent.
 */
async function upload(url: string, token: string, size: number): Promise<{ id: string; sha256: string; sent: string }> {
  const block = randomBytes(MiB);
  const boundary = `----tabulabench${Date.now()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const hash = createHash('sha256');
  const req = request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
  });
  const answer = once(req, 'response') as Promise<[import('node:http').IncomingMessage]>;
  req.write(head);
  for (let sent = 0; sent < size; sent += block.length) {
    const chunk = block.subarray(0, Math.min(block.length, size - sent));
    hash.update(chunk);
    if (!req.write(chunk)) await once(req, 'drain');
  }
  req.end(tail);
  const [res] = await answer;
  let body = '';
  for await (const part of res) body += String(part);
  if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${body}`);
  const file = JSON.parse(body) as { id: string; sha256: string; size: number };
  if (file.size !== size) throw new Error(`upload: stored ${file.size} bytes of ${size}`);
  return { id: file.id, sha256: file.sha256, sent: hash.digest('hex') };
}

/** GETs the bytes, hashing them as they arrive; answers their SHA-256. */
async function download(url: string, token: string): Promise<string> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok || !res.body) throw new Error(`download: ${res.status}`);
  const hash = createHash('sha256');
  for await (const chunk of res.body) hash.update(chunk);
  return hash.digest('hex');
}
