import type { IncomingHttpHeaders } from 'node:http';

/** The host of `Origin`, or when absent of `Referer` (docs/concepts.md#api-keys); null when neither names one. */
function requestOriginHost(headers: IncomingHttpHeaders): string | null {
  const source = headers.origin ?? headers.referer;
  if (!source || source === 'null') return null;
  try {
    return new URL(source).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * docs/concepts.md#api-keys: the host equals an entry, or matches a `*.example.com` entry (any subdomain, not the
 * apex). Case-insensitive; the port never matters (URL.hostname has none).
 */
export function hostAllowed(host: string, allowedHosts: string[]): boolean {
  return allowedHosts.some((entry) => {
    const rule = entry.toLowerCase();
    if (rule.startsWith('*.')) return host.endsWith(rule.slice(1));
    return host === rule;
  });
}

const NO_ORIGIN_MESSAGE = 'Origin (or Referer) header missing: this key answers only requests from its allowed hosts';
const HOST_NOT_ALLOWED_MESSAGE = 'Request origin is not in the key’s allowed hosts';

/**
 * Why a key restricted to `allowedHosts` refuses this request (a 403 message), or null when it
 * may pass. A request without either header is told so: a server-side caller (curl, a build
 * script) sends neither, and "not allowed" would send it looking for a wrong entry in the list.
 * A header that names no host (`Origin: null`, a bare name) is present, and not allowed.
 */
export function originRefusal(headers: IncomingHttpHeaders, allowedHosts: string[]): string | null {
  if (allowedHosts.length === 0) return null;
  if (!headers.origin && !headers.referer) return NO_ORIGIN_MESSAGE;
  const host = requestOriginHost(headers);
  return host && hostAllowed(host, allowedHosts) ? null : HOST_NOT_ALLOWED_MESSAGE;
}
