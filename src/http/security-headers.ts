import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

type Header = [name: string, value: string];

/**
 * Helmet's headers, worked out once at start-up and set on every response. Helmet itself runs
 * a dozen small middlewares per request to set the same constant headers.
 *
 * Two sets, chosen by `req.secure`. A request that arrived over plain http gets no CSP
 * `upgrade-insecure-requests`: it makes a browser fetch the page's own stylesheets and scripts
 * over https, from a server that speaks only http, so `/docs` was blank on every address but
 * loopback (which browsers never upgrade). Nor the headers that browsers honour only on a secure
 * origin: HSTS (ignored over http, RFC 6797 §8.1) and COOP (ignored on an untrustworthy origin,
 * with an error in the console). `req.secure` is true on a TLS socket, or behind a proxy once
 * express's `trust proxy` is set and the proxy sends `X-Forwarded-Proto: https`.
 */
export function securityHeaders(options: HelmetOptions): RequestHandler {
  const secure = helmetHeaders(options);
  const plain = forPlainHttp(secure);
  return (req, res, next) => {
    for (const [name, value] of req.secure ? secure : plain) res.setHeader(name, value);
    next();
  };
}

const SECURE_ORIGIN_ONLY = new Set(['strict-transport-security', 'cross-origin-opener-policy']);

function forPlainHttp(headers: Header[]): Header[] {
  return headers
    .filter(([name]) => !SECURE_ORIGIN_ONLY.has(name.toLowerCase()))
    .map(([name, value]): Header => {
      if (!name.toLowerCase().startsWith('content-security-policy')) return [name, value];
      const directives = value.split(';').filter((directive) => directive.trim().toLowerCase() !== 'upgrade-insecure-requests');
      return [name, directives.join(';')];
    });
}

function helmetHeaders(options: HelmetOptions): Header[] {
  const headers: Header[] = [];
  const probe = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    removeHeader: () => {},
  };
  helmet(options)({} as never, probe as never, () => {});
  return headers;
}
