import type { IncomingMessage } from 'node:http';

/** The media type of the request's Content-Type, without parameters, lower case; '' when absent. */
export const mediaType = (req: IncomingMessage): string => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/** The `charset` parameter of the request's Content-Type, lower case; null when absent. */
export const mediaTypeCharset = (req: IncomingMessage): string | null =>
  /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase() ?? null;
