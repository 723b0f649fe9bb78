import { badRequest } from '../../errors/app-error.js';

/*
 * The query parameters of an image transformation (docs/resources.md#image-transformations): `w`, `h`, `fit`, `format`, `q`
 * on `GET .../files/{fileId}/content`. Pure functions: reading them from a query string, and
 * resolving them against the stored file into one normalized request whose `key` names the
 * derived image (the cache key and part of the ETag).
 */

export const IMAGE_PARAMS = ['w', 'h', 'fit', 'format', 'q'] as const;
export type ImageParam = (typeof IMAGE_PARAMS)[number];

export const FITS = ['cover', 'contain', 'inside'] as const;
export type Fit = (typeof FITS)[number];

export const OUTPUT_FORMATS = ['webp', 'avif', 'jpeg', 'png'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Largest `w` or `h`. */
export const MAX_DIMENSION = 4096;
export const DEFAULT_QUALITY = 80;

export const OUTPUT_TYPES: Record<OutputFormat, string> = { webp: 'image/webp', avif: 'image/avif', jpeg: 'image/jpeg', png: 'image/png' };

/**
 * The stored types that can be transformed (what libvips reads in sharp's build), and the
 * format a transformation writes when the request names none: the original's own, except GIF
 * and TIFF (not written here; browsers do not show TIFF), which become PNG (lossless, keeps
 * transparency). `image/jpg` is a common misspelling clients send.
 */
export const TRANSFORMABLE_TYPES: Readonly<Record<string, OutputFormat>> = {
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'png',
  'image/tiff': 'png',
};

const IMAGE_TYPES_NAMED = Object.keys(TRANSFORMABLE_TYPES)
  .filter((type) => type !== 'image/jpg')
  .join(', ');

/** Output formats whose encoders take a quality; PNG is lossless and ignores `q`. */
const LOSSY: ReadonlySet<OutputFormat> = new Set(['webp', 'avif', 'jpeg']);

/**
 * Bumped whenever the same parameters would produce different bytes (another resampling
 * rule, encoder options): derived images cached under the old version are then neither served
 * nor matched by an old ETag.
 */
const PIPELINE_VERSION = 'v1';

/** The parameters as given, each checked on its own. */
export interface ImageQuery {
  /** The parameters present, in IMAGE_PARAMS order (for messages). */
  given: ImageParam[];
  width?: number;
  height?: number;
  fit?: Fit;
  format?: OutputFormat;
  quality?: number;
}

/** One transformation, with every default applied. */
export interface ImageRequest {
  width?: number;
  height?: number;
  /** How `width` × `height` is filled; only meaningful when both are given. */
  fit: Fit;
  format: OutputFormat;
  /** Encoder quality; absent for PNG. */
  quality?: number;
  /** Names the derived image among those of the same original, e.g. `v1-w400-inside-q80.webp`. */
  key: string;
}

/** `w[]`, `w[0]`, `w[a][b]`: the parameter's name before its brackets. */
const BRACKETED = /^([^[\]]+)\[/;

function single(name: ImageParam, value: unknown): string {
  if (typeof value !== 'string') throw badRequest(`${name} must be given once, as a plain value`);
  return value;
}

/** Plain decimal without a leading zero (as every integer of the /v1 query strings). */
function integerIn(name: ImageParam, text: string, min: number, max: number): number {
  const n = /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

function oneOf<T extends string>(name: ImageParam, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) throw badRequest(`${name} must be one of ${allowed.join(', ')}`);
  return text as T;
}

/**
 * The transformation parameters of a query string (express's parsed `req.query`), or null when
 * it names none (the plain download). A bad value is 400 BAD_REQUEST naming the parameter.
 * Other parameters are left alone, as the plain download does.
 */
export function readImageQuery(query: Record<string, unknown>): ImageQuery | null {
  // `w[]=10`, `fit[a]=…`: array-shaped, refused as a repeated parameter is (not ignored, which
  // would serve the original).
  for (const key of Object.keys(query)) {
    const base = BRACKETED.exec(key)?.[1];
    if (base !== undefined && (IMAGE_PARAMS as readonly string[]).includes(base)) {
      throw badRequest(`${base} must be given once, as a plain value (${JSON.stringify(key.slice(0, 40))} is not accepted)`);
    }
  }
  const given = IMAGE_PARAMS.filter((name) => Object.hasOwn(query, name));
  if (given.length === 0) return null;
  const value = (name: ImageParam) => (Object.hasOwn(query, name) ? single(name, query[name]) : undefined);
  const w = value('w');
  const h = value('h');
  const fit = value('fit');
  const format = value('format');
  const q = value('q');
  return {
    given,
    ...(w === undefined ? {} : { width: integerIn('w', w, 1, MAX_DIMENSION) }),
    ...(h === undefined ? {} : { height: integerIn('h', h, 1, MAX_DIMENSION) }),
    ...(fit === undefined ? {} : { fit: oneOf('fit', fit, FITS) }),
    ...(format === undefined ? {} : { format: oneOf('format', format, OUTPUT_FORMATS) }),
    ...(q === undefined ? {} : { quality: integerIn('q', q, 1, 100) }),
  };
}

/** Whether files of this stored type can be transformed. */
export const isTransformable = (mimeType: string) => Object.hasOwn(TRANSFORMABLE_TYPES, mimeType.toLowerCase());

/**
 * The transformation of a file of type `mimeType`, with the defaults: `fit` is `cover` when
 * both `w` and `h` are given (and ignored otherwise: one dimension keeps the aspect ratio),
 * the format is the original's, the quality 80. A file that is not an image is 400 naming the
 * first parameter given.
 */
export function resolveImageRequest(query: ImageQuery, mimeType: string): ImageRequest {
  if (!isTransformable(mimeType)) {
    throw badRequest(`${query.given[0]}: only image files can be transformed (${IMAGE_TYPES_NAMED}); this file is ${mimeType}`);
  }
  const original = TRANSFORMABLE_TYPES[mimeType.toLowerCase()];
  const both = query.width !== undefined && query.height !== undefined;
  const fit: Fit = both ? (query.fit ?? 'cover') : 'inside';
  const format = query.format ?? original;
  const quality = LOSSY.has(format) ? (query.quality ?? DEFAULT_QUALITY) : undefined;
  const parts = [
    PIPELINE_VERSION,
    ...(query.width === undefined ? [] : [`w${query.width}`]),
    ...(query.height === undefined ? [] : [`h${query.height}`]),
    ...(both ? [fit] : []),
    ...(quality === undefined ? [] : [`q${quality}`]),
  ];
  return {
    ...(query.width === undefined ? {} : { width: query.width }),
    ...(query.height === undefined ? {} : { height: query.height }),
    fit,
    format,
    ...(quality === undefined ? {} : { quality }),
    key: `${parts.join('-')}.${format}`,
  };
}
