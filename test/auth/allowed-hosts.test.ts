import { describe, expect, it } from 'vitest';
import { hostAllowed, originRefusal } from '../../src/auth/allowed-hosts.js';

/** Allowed hosts (docs/concepts.md#api-keys) as a pure decision: which requests pass, and what a refusal says. */

const MISSING = /^Origin \(or Referer\) header missing/;
const NOT_ALLOWED = 'Request origin is not in the key’s allowed hosts';

describe('originRefusal', () => {
  const hosts = ['app.example.org', '*.example.com'];

  it('a key without allowed hosts refuses nothing, with or without the headers', () => {
    expect(originRefusal({}, [])).toBeNull();
    expect(originRefusal({ origin: 'https://evil.example.net' }, [])).toBeNull();
  });

  it('no Origin and no Referer (or empty ones): the header is missing', () => {
    expect(originRefusal({}, hosts)).toMatch(MISSING);
    expect(originRefusal({ origin: '', referer: '' }, hosts)).toMatch(MISSING);
  });

  it('a header naming another host, or no host at all, is not allowed', () => {
    for (const headers of [
      { origin: 'https://evil.example.net' },
      { referer: 'https://evil.example.net/app.example.org' },
      { origin: 'null' },
      { origin: 'null', referer: 'https://app.example.org/' },
      { origin: 'app.example.org' },
      { origin: 'https://example.com' },
    ]) {
      expect(originRefusal(headers, hosts), JSON.stringify(headers)).toBe(NOT_ALLOWED);
    }
  });

  it('an allowed host passes, from Origin or (without it) Referer', () => {
    expect(originRefusal({ origin: 'https://APP.example.org:8443' }, hosts)).toBeNull();
    expect(originRefusal({ referer: 'http://cdn.example.com/page' }, hosts)).toBeNull();
    expect(originRefusal({ origin: 'https://a.b.example.com', referer: 'https://evil.example.net/' }, hosts)).toBeNull();
  });
});

describe('hostAllowed', () => {
  it('a wildcard matches subdomains, not the apex or look-alikes', () => {
    expect(hostAllowed('cdn.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('badexample.com', ['*.example.com'])).toBe(false);
  });
});
