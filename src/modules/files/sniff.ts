/** How many leading bytes `sniffMimeType` needs (tar's magic sits at 257). */
export const SNIFF_BYTES = 512;

const ascii = (text: string) => Buffer.from(text, 'latin1');

/** [offset, signature, type]: the common formats of a content API, by their magic numbers. */
const SIGNATURES: [number, Buffer, string][] = [
  [0, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'],
  [0, Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg'],
  [0, ascii('GIF87a'), 'image/gif'],
  [0, ascii('GIF89a'), 'image/gif'],
  [0, ascii('BM'), 'image/bmp'],
  [0, Buffer.from([0x00, 0x00, 0x01, 0x00]), 'image/x-icon'],
  [0, Buffer.from([0x49, 0x49, 0x2a, 0x00]), 'image/tiff'],
  [0, Buffer.from([0x4d, 0x4d, 0x00, 0x2a]), 'image/tiff'],
  [0, ascii('%PDF-'), 'application/pdf'],
  [0, Buffer.from([0x50, 0x4b, 0x03, 0x04]), 'application/zip'],
  [0, Buffer.from([0x1f, 0x8b]), 'application/gzip'],
  [0, ascii('7z\xbc\xaf\x27\x1c'), 'application/x-7z-compressed'],
  [0, ascii('Rar!\x1a\x07'), 'application/vnd.rar'],
  [257, ascii('ustar'), 'application/x-tar'],
  [0, ascii('OggS'), 'audio/ogg'],
  [0, ascii('fLaC'), 'audio/flac'],
  [0, ascii('ID3'), 'audio/mpeg'],
  [0, Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), 'video/webm'],
  [0, ascii('wOFF'), 'font/woff'],
  [0, ascii('wOF2'), 'font/woff2'],
  [0, Buffer.from([0x00, 0x61, 0x73, 0x6d]), 'application/wasm'],
];

/** RIFF containers and ISO base media files name their kind a few bytes in. */
function containerType(head: Buffer): string | null {
  const at = (offset: number, text: string) => head.subarray(offset, offset + text.length).equals(ascii(text));
  if (at(0, 'RIFF')) {
    if (at(8, 'WEBP')) return 'image/webp';
    if (at(8, 'WAVE')) return 'audio/wav';
    if (at(8, 'AVI ')) return 'video/x-msvideo';
  }
  if (at(4, 'ftyp')) {
    const brand = head.subarray(8, 12).toString('latin1');
    if (brand === 'avif' || brand === 'avis') return 'image/avif';
    if (['heic', 'heix', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
    if (brand.startsWith('qt')) return 'video/quicktime';
    if (brand.startsWith('M4A')) return 'audio/mp4';
    return 'video/mp4';
  }
  return null;
}

/** Text that looks like markup or JSON; otherwise valid UTF-8 without control bytes is plain text. */
function textType(head: Buffer): string | null {
  if (head.length === 0) return null;
  if (head.subarray(0, Math.min(head.length, SNIFF_BYTES)).some((b) => b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f)) return null;
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (/^<svg[\s>]/i.test(text) || (/^<\?xml/i.test(text) && /<svg[\s>]/i.test(text))) return 'image/svg+xml';
  if (/^<\?xml/i.test(text)) return 'application/xml';
  if (/^<!doctype html|^<html[\s>]/i.test(text)) return 'text/html';
  if (/^[{[]/.test(text)) return 'application/json';
  return 'text/plain';
}

/** The binary format the bytes announce by a magic number, or null. */
function binaryType(head: Buffer): string | null {
  for (const [offset, signature, type] of SIGNATURES) {
    if (head.length >= offset + signature.length && head.subarray(offset, offset + signature.length).equals(signature)) return type;
  }
  return containerType(head);
}

/** The type the bytes announce, or null when they announce none we know. */
export const sniffMimeType = (head: Buffer): string | null => binaryType(head) ?? textType(head);

const GENERIC = new Set(['application/octet-stream', 'text/plain', 'binary/octet-stream', 'application/unknown']);

/**
 * The stored type (docs/resources.md#files: from the upload, or sniffed). The part's own type wins unless it is
 * generic: `application/octet-stream` (what clients send when they do not know), or
 * `text/plain`, which is also what a part without a Content-Type reports.
 */
export function pickMimeType(declared: string | undefined, head: Buffer): string {
  const given = declared?.toLowerCase();
  if (given && !GENERIC.has(given)) return given;
  // A text part keeps its type unless the bytes are plainly a binary format.
  if (given === 'text/plain') return binaryType(head) ?? 'text/plain';
  return sniffMimeType(head) ?? 'application/octet-stream';
}
