import { z } from 'zod';

/** Environment flags accept the usual spellings; anything else is a configuration error. */
const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

const delayList = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'a comma-separated list of whole seconds')
  .transform((v) => v.split(',').map((s) => Number(s.trim())));

const postgresUrl = z.url({ protocol: /^postgres(ql)?$/ });

/** Comma-separated PostgreSQL URLs; blanks around commas are ignored. */
const urlList = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter((s) => s !== ''))
  .pipe(z.array(postgresUrl));

const envSchema = z.object({
  DATABASE_URL: postgresUrl.optional(),
  /** Streaming replicas of DATABASE_URL that reads may use (docs/scaling-out.md#read-replicas). */
  DATABASE_REPLICA_URLS: urlList.default([]),
  /** A replica further behind the primary than this gets no reads without a consistency token. */
  REPLICA_MAX_LAG_MS: positiveInt.default(1000),
  /** How often each replica's replay position is polled, in the background. */
  REPLICA_CHECK_MS: z.coerce.number().int().min(20).max(10_000).default(200),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_TOKEN: z
    .string()
    .regex(/^tat_[A-Za-z0-9]{43}$/, 'must be tat_ followed by 43 base62 characters')
    .optional(),
  STORAGE_DRIVER: z.enum(['local', 'postgres', 's3']).default('local'),
  STORAGE_DIR: z.string().min(1).default('./.data/files'),
  /** STORAGE_DRIVER=s3 (docs/resources.md#storage-drivers); S3_BUCKET is required then, and reads the bucket's files whatever the driver. */
  S3_BUCKET: z.string().min(3, 'at least 3 characters').optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** MinIO, Ceph, R2 and the like; unset: AWS. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** Both or neither; neither: the AWS SDK's default credential chain. */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: flag.default(false),
  /**
   * Staged uploads older than this are leftovers of a process that died mid-upload, removed at
   * start-up. It must exceed REQUEST_TIMEOUT_MS (a stalled upload ends within it), and should
   * exceed the longest upload expected: one that keeps arriving is never cut off.
   */
  STAGED_UPLOADS_MAX_AGE_MS: positiveInt.default(60 * 60 * 1000),
  FILES_MAX_BYTES: positiveInt.default(50 * 1024 * 1024),
  /** Largest contents import body (docs/import-export.md); it streams, so this bounds time, not memory (see REQUEST_TIMEOUT_MS). */
  IMPORT_MAX_BYTES: positiveInt.default(1024 * 1024 * 1024),
  BODY_MAX_BYTES: positiveInt.default(1024 * 1024),
  /** Largest image (width × height) a transformation decodes (docs/resources.md#image-transformations); larger is 422. */
  IMAGE_MAX_PIXELS: positiveInt.default(100_000_000),
  /** Image transformations run at once per API process; further first requests wait. */
  IMAGE_CONCURRENCY: positiveInt.default(2),
  // Request line plus headers; larger is 431 (node's own default, 16 KiB).
  HEADER_MAX_BYTES: positiveInt.default(16 * 1024),
  // A client must send its headers within this time (slowloris); else 408 and the socket closes.
  HEADERS_TIMEOUT_MS: positiveInt.default(20_000),
  // How long a request body may stop arriving while the server waits for it: then 408 and the
  // socket closes (http/stalled-bodies.ts). A body that keeps arriving is never cut off, however
  // long it takes (an import reads only as fast as it writes rows); the server's own time does
  // not count.
  REQUEST_TIMEOUT_MS: positiveInt.default(120_000),
  RATE_LIMIT_PER_SECOND: positiveInt.default(50),
  RATE_LIMIT_BURST: positiveInt.default(100),
  WEBHOOK_RETRY_DELAYS: delayList.default([5, 300, 1800, 7200, 18000, 36000, 36000]),
  WEBHOOKS_ALLOW_PRIVATE: flag.default(false),
  LOG_RETENTION_DAYS: positiveInt.default(30),
  /** Revisions kept per contents row (docs/contents.md#revisions); older ones are purged by the `revisions` worker. */
  REVISIONS_PER_ROW: positiveInt.default(100),
  /** Open realtime streams per credential, across API processes (docs/realtime.md#who-sees-what); 429 beyond. */
  REALTIME_MAX_STREAMS: positiveInt.default(100),
  /** A comment line on every open realtime stream this often, so proxies keep it open. */
  REALTIME_HEARTBEAT_MS: positiveInt.default(15_000),
  /** How often the credential of an open stream is checked again (revoked: the stream closes). */
  REALTIME_RECHECK_MS: positiveInt.default(2_000),
  /** Request logs (docs/logs-and-metrics.md#request-logs); off only to measure what they cost (npm run bench). */
  REQUEST_LOGGING: flag.default(true),
  /** When set, `GET /metrics` (Prometheus) requires `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unset: readable at a terminal outside production, JSON otherwise (see shared/logger). */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  NODE_ENV: z.string().default('development'),
  DATA_DIR: z.string().min(1).default('./.data'),
  /** Seconds a shared cache (CDN, Varnish) may serve read keys' answers (`s-maxage`, docs/scaling-out.md#http-caches-and-purging); 0: not at all. */
  CDN_MAX_AGE: z.coerce.number().int().min(0).max(31_536_000).default(0),
  /** Where the `cdn-purge` worker sends purges by surrogate key; unset: no purges. */
  CDN_PURGE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The purge format: Varnish xkey (`PURGE` with `xkey-purge`), Fastly or Cloudflare. */
  CDN_PURGE_KIND: z.enum(['varnish', 'fastly', 'cloudflare']).default('varnish'),
  /** Fastly API token (`Fastly-Key`) or Cloudflare API token (`Authorization: Bearer`); required for those kinds. */
  CDN_PURGE_TOKEN: z.string().min(1).optional(),
});

export type Config = z.infer<typeof envSchema>;

export class ConfigError extends Error {}

/**
 * Reads the configuration from the environment. An invalid value stops start-up with one line
 * naming the variable (docs/configuration.md).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])}: ${issue.message}`);
  }
  if (parsed.data.HEADERS_TIMEOUT_MS > parsed.data.REQUEST_TIMEOUT_MS) {
    // A stalled body would get longer than headers that stall: a setting that is surely a slip.
    throw new ConfigError('Invalid configuration: HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS');
  }
  if (parsed.data.ADMIN_TOKEN && !parsed.data.ADMIN_EMAIL) {
    throw new ConfigError('Invalid configuration: ADMIN_EMAIL: required when ADMIN_TOKEN is set');
  }
  if (parsed.data.STORAGE_DRIVER === 's3' && !parsed.data.S3_BUCKET) {
    throw new ConfigError('Invalid configuration: S3_BUCKET: required when STORAGE_DRIVER is s3');
  }
  if (!parsed.data.S3_ACCESS_KEY_ID !== !parsed.data.S3_SECRET_ACCESS_KEY) {
    const missing = parsed.data.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID';
    throw new ConfigError(`Invalid configuration: ${missing}: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together`);
  }
  if (parsed.data.STAGED_UPLOADS_MAX_AGE_MS <= parsed.data.REQUEST_TIMEOUT_MS) {
    // Younger staged uploads may still be streaming in.
    throw new ConfigError('Invalid configuration: STAGED_UPLOADS_MAX_AGE_MS: must exceed REQUEST_TIMEOUT_MS');
  }
  if (parsed.data.CDN_PURGE_URL && parsed.data.CDN_PURGE_KIND !== 'varnish' && !parsed.data.CDN_PURGE_TOKEN) {
    throw new ConfigError(`Invalid configuration: CDN_PURGE_TOKEN: required when CDN_PURGE_KIND is ${parsed.data.CDN_PURGE_KIND}`);
  }
  return parsed.data;
}
