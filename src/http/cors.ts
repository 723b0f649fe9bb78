import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { AppDeps } from '../app-deps.js';
import { hostAllowed } from '../auth/allowed-hosts.js';
import type { Principal } from '../auth/principal.js';

/*
 * CORS for `/v1` and `/trpc` (docs/concepts.md "CORS"). Every credential is a bearer token that a page
 * must already hold, so cross-origin reads are allowed by default, without credentials mode
 * (cookies play no part). The exception is an API key with `allowedHosts`: a response to it
 * names the Origin only when that origin is allowed, so a page elsewhere cannot read it
 * (the request itself is refused with 403 as well, docs/concepts.md#api-keys).
 *
 * A browser sends no Authorization header in a preflight, so a preflight cannot tell which key
 * will follow; it permits the request from any web origin and the actual response decides.
 * A preflight that does carry a credential (non-browser clients) is judged like a request.
 */

const ALLOW_METHODS = 'GET, POST, PUT, DELETE';
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id, Range, If-Match, If-None-Match, If-Modified-Since, If-Range, Tabula-Consistency';
const EXPOSE_HEADERS =
  'X-Request-Id, Location, Allow, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, ETag, Content-Range, Content-Disposition, Accept-Ranges, Tabula-Consistency, Tabula-Served-By';
/** Browsers cache a preflight answer this long (Chromium caps it at 2 hours anyway). */
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * The Origin header when it is a web origin in the form browsers send (`https://host[:port]`).
 * `null` (sandboxed frames, file://) and anything else are never echoed.
 */
function webOrigin(req: IncomingMessage): { origin: string; host: string } | null {
  const value = req.headers.origin;
  if (!value) return null;
  try {
    const url = new URL(value);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value) return null;
    return { origin: value, host: url.hostname };
  } catch {
    return null;
  }
}

/** Whether a response for this credential may be read by a page of `host`. */
function readableFrom(principal: Principal | null, host: string): boolean {
  if (principal?.kind !== 'apiKey' || principal.allowedHosts.length === 0) return true;
  return hostAllowed(host, principal.allowedHosts);
}

export function cors(deps: AppDeps): RequestHandler {
  return async (req, res, next) => {
    // The answer depends on Origin: a shared cache must not hand it to another origin.
    res.vary('Origin');
    const origin = webOrigin(req);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!origin) {
      if (preflight) res.status(204).end();
      else next();
      return;
    }
    // Cached for the rate limiter and the procedure that resolve it next; an invalid one is null.
    const principal = req.headers.authorization ? await deps.credentials.resolve(req.headers.authorization).catch(() => null) : null;
    if (readableFrom(principal, origin.host)) res.setHeader('Access-Control-Allow-Origin', origin.origin);
    if (!preflight) {
      res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
    res.status(204).end();
  };
}
