import { loadConfig, type Config } from '../../src/config/config.js';
import { generateSecret, ACCOUNT_TOKEN_PREFIX } from '../../src/shared/secrets.js';
import { createLogger, type Logger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestApi {
  url: string;
  api: RunningApi;
  db: TestDatabase;
  adminToken: string;
  adminEmail: string;
  call: (method: string, path: string, options?: CallOptions) => Promise<CallResult>;
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as given, with only the headers passed. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // Tests read arbitrary response shapes; the assertions say what they expect.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

/** A small fetch client for a test server at `url`; `token` defaults to `defaultToken`, null sends none. */
export function clientFor(url: string, defaultToken: string) {
  return async (method: string, path: string, options: CallOptions = {}): Promise<CallResult> => {
    const headers = new Headers(options.headers);
    const token = options.token === undefined ? defaultToken : options.token;
    if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    let body: string | Buffer | undefined = options.raw;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    return toCallResult(await fetch(url + path, { method, headers, body, redirect: 'manual' }));
  };
}

/** A fetch response as tests read it: status, headers, the text, and its JSON when it is JSON. */
export async function toCallResult(res: Response): Promise<CallResult> {
  // An open event stream never ends by itself: its status and headers tell, and it is closed.
  if (res.ok && res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, headers: res.headers, json: null, text: '' };
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/**
 * Starts the real API on an ephemeral port against a fresh database and returns a small fetch
 * client for it. `env` overrides configuration variables; `logger` (e.g. one writing to a
 * logCapture) replaces the default one.
 */
export async function startTestApi(env: Record<string, string> = {}, options: { logger?: Logger } = {}): Promise<TestApi> {
  const db = await createTestDatabase();
  const adminToken = generateSecret(ACCOUNT_TOKEN_PREFIX);
  const adminEmail = 'admin@example.com';
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_EMAIL: adminEmail,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_BURST: '20000',
    ...env,
  });
  const api = await startApi(config, db.url, options.logger ?? createLogger(config.LOG_LEVEL));
  const call = clientFor(api.url, adminToken);
  return {
    url: api.url,
    api,
    db,
    adminToken,
    adminEmail,
    call,
    close: async () => {
      await api.close(1000);
      await db.drop();
    },
  };
}
