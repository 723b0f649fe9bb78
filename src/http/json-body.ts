import type { ServerResponse } from 'node:http';

/**
 * Ends `res` with a JSON body as toJsonBody makes it (shared/encoded-json.ts): a string, or parts
 * of UTF-8 written as they are (joining them would copy an encoded page once more), with its
 * `Content-Type` and `Content-Length`.
 */
export function endWithJson(res: ServerResponse, body: string | Buffer[]): void {
  res.setHeader('Content-Type', 'application/json');
  if (typeof body === 'string') {
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return;
  }
  res.setHeader('Content-Length', body.reduce((length, part) => length + part.length, 0));
  res.cork();
  for (const part of body.slice(0, -1)) res.write(part);
  res.end(body.at(-1));
  res.uncork();
}
