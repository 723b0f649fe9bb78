import type { IncomingHttpHeaders } from 'node:http';
import type { ByteRange } from '../../storage/storage.js';
import { cleanFileName } from '../../modules/files/file-name.js';

/**
 * The one range a `Range` header asks for (RFC 9110 §14): a `ByteRange`, `'unsatisfiable'`
 * (416), or null to send the whole file — no header, a header we do not parse (several ranges,
 * another unit, bad syntax: ignoring it is allowed), or an `If-Range` that no longer matches.
 */
export function requestedRange(headers: IncomingHttpHeaders, size: number, etag: string): ByteRange | 'unsatisfiable' | null {
  const header = headers.range;
  if (!header) return null;
  const ifRange = headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [, first, last] = match;
  if (first === '') {
    // bytes=-N: the last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** `If-None-Match` lists our ETag (or `*`): the client's copy is current (304). */
export function notModified(headers: IncomingHttpHeaders, etag: string): boolean {
  const value = headers['if-none-match'];
  if (!value) return false;
  return value.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/**
 * Types a browser shows without running anything: these open inline; everything else (HTML, SVG,
 * XML, scripts...) is an attachment, so that an uploaded page cannot run in the API's origin.
 */
const INLINE = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon|tiff|heic)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain|font\/[\w.+-]+)$/;

/**
 * `Content-Disposition` with an ASCII fallback name and the exact UTF-8 one (RFC 6266). The name
 * is cleaned again: rows stored before names were cleaned on the way in may still hold a path.
 */
export function contentDisposition(mimeType: string, storedName: string): string {
  const type = INLINE.test(mimeType) ? 'inline' : 'attachment';
  const name = cleanFileName(storedName) || 'file';
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
