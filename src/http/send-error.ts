import type { ServerResponse } from 'node:http';
import type { DescribedError } from '../errors/describe.js';

/** Writes an error response (docs/reliability.md#errors); the only place an error body is written by express. */
export function sendError(res: ServerResponse, described: DescribedError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = described.status;
  for (const [name, value] of Object.entries(described.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(described.body));
}
