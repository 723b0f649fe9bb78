import type { IncomingHttpHeaders } from 'node:http';

/** The host of `Origin`, or when absent of `Referer` (SPEC §4); null when neither names one. */
export function requestOriginHost(headers: IncomingHttpHeaders): string | null {
  const source = headers.origin ?? headers.referer;
  if (!source || source === 'null') return null;
  try {
    return new URL(source).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * SPEC §4: the host equals an entry, or matches a `*.example.com` entry (any subdomain, not the
 * apex). Case-insensitive; the port never matters (URL.hostname has none).
 */
export function hostAllowed(host: string, allowedHosts: string[]): boolean {
  return allowedHosts.some((entry) => {
    const rule = entry.toLowerCase();
    if (rule.startsWith('*.')) return host.endsWith(rule.slice(1));
    return host === rule;
  });
}
