import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { isPublicAddress } from './ip-ranges.js';

/** A destination that resolves to an address webhooks may not reach (SSRF protection). */
export class BlockedDestinationError extends Error {
  readonly code = 'EBLOCKEDDESTINATION';
}

/** How long a create or update waits for DNS before refusing the host. */
const LOOKUP_TIMEOUT_MS = 5_000;

/** `[::1]` in a URL is `::1` to the resolver. */
const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

const blockedMessage = (host: string, address: string) =>
  `${host} resolves to ${address}, a loopback, private, link-local or otherwise non-public address`;

function firstBlocked(addresses: readonly LookupAddress[]): LookupAddress | undefined {
  return addresses.find((a) => !isPublicAddress(a.address));
}

/**
 * Why an IP-literal `url` may not be reached, or null (also for host names, which the socket
 * resolves through `guardedLookup`). Cheap: no DNS; used before each delivery.
 */
export function literalAddressProblem(url: URL, allowPrivate: boolean): string | null {
  const host = bareHost(url.hostname);
  if (allowPrivate || !isIP(host)) return null;
  return isPublicAddress(host) ? null : blockedMessage(host, host);
}

/**
 * Why `url` may not be used as a webhook destination, or null when it may: every address its
 * host resolves to (all of them, A and AAAA) must be public. A host that does not resolve is
 * refused too, since nothing about it can be vetted.
 */
export async function destinationProblem(url: URL, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const host = bareHost(url.hostname);
  if (isIP(host)) return literalAddressProblem(url, allowPrivate);
  let addresses: LookupAddress[];
  try {
    addresses = await Promise.race([
      dns.lookup(host, { all: true }),
      // getaddrinfo has no deadline of its own; a request must not wait on a dead resolver.
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('DNS timeout')), LOOKUP_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return `${host} does not resolve`;
  }
  if (addresses.length === 0) return `${host} does not resolve`;
  const blocked = firstBlocked(addresses);
  return blocked ? blockedMessage(host, blocked.address) : null;
}

/**
 * A socket `lookup` that resolves like the system resolver and refuses the connection when any
 * resolved address is not public. It runs while connecting, so the address that was vetted is
 * the address connected to: a DNS answer that changes between the check at create time and the
 * delivery (DNS rebinding) cannot slip a private address through.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const blocked = firstBlocked(addresses);
    if (blocked || addresses.length === 0) {
      const refused = new BlockedDestinationError(blocked ? blockedMessage(hostname, blocked.address) : `${hostname} does not resolve`);
      return callback(refused, '', 0);
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

/**
 * The HTTP agent webhook deliveries go through. With `allowPrivate` (local testing only) it is a
 * plain agent; otherwise every new connection resolves through `guardedLookup`. (An IP literal
 * in a URL is never looked up by the socket: check it with `destinationProblem` first.)
 */
export function createDeliveryAgent(allowPrivate: boolean): Agent {
  return new Agent({
    keepAliveTimeout: 4_000,
    connect: allowPrivate ? {} : { lookup: guardedLookup },
  });
}
