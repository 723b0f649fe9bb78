import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityHeaders } from '../../src/http/security-headers.js';

/**
 * Which helmet headers a request gets by how it arrived: over https (here: a trusted proxy's
 * `X-Forwarded-Proto`, the only way Tabula, which listens on plain http, sees one) or plain http.
 */

const OPTIONS = { contentSecurityPolicy: { directives: { 'script-src': ["'self'"] } } };
const servers: Server[] = [];
let trusting: string;
let plain: string;

/** An app answering 'ok' with the security headers, on an ephemeral port; its base URL. */
async function listen(trustProxy: boolean): Promise<string> {
  const app = express();
  if (trustProxy) app.set('trust proxy', 'loopback');
  app.use(securityHeaders(OPTIONS), (_req, res) => void res.send('ok'));
  const server = createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  trusting = await listen(true);
  plain = await listen(false);
});
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

const headersOf = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  await res.text();
  return res.headers;
};

describe('security headers by transport', () => {
  it('over https (a trusted proxy says so): HSTS, COOP and upgrade-insecure-requests', async () => {
    const h = await headersOf(trusting, { 'x-forwarded-proto': 'https' });
    expect(h.get('strict-transport-security')).toMatch(/max-age=\d{7,}/);
    expect(h.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(h.get('content-security-policy')).toContain('upgrade-insecure-requests');
    expect(h.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('over plain http: none of the three, every other header as over https', async () => {
    const secure = await headersOf(trusting, { 'x-forwarded-proto': 'https' });
    for (const [label, h] of [['proxy says http', await headersOf(trusting, { 'x-forwarded-proto': 'http' })], ['no proxy header', await headersOf(trusting)]] as const) {
      expect(h.has('strict-transport-security'), label).toBe(false);
      expect(h.has('cross-origin-opener-policy'), label).toBe(false);
      const csp = h.get('content-security-policy') ?? '';
      expect(csp, label).not.toContain('upgrade-insecure-requests');
      // The same policy otherwise, directive for directive.
      const directives = (value: string) => value.split(';').filter((d) => d !== 'upgrade-insecure-requests');
      expect(csp.split(';'), label).toEqual(directives(secure.get('content-security-policy')!));
      for (const name of ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-resource-policy', 'origin-agent-cluster']) {
        expect(h.get(name), `${label}: ${name}`).toBe(secure.get(name));
      }
    }
  });

  it('without a trusted proxy, a client cannot claim https with X-Forwarded-Proto', async () => {
    const h = await headersOf(plain, { 'x-forwarded-proto': 'https' });
    expect(h.has('strict-transport-security')).toBe(false);
    expect(h.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
  });
});
