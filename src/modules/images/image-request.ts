import { badRequest } from '../../errors/app-error.js';

/*
 * The parameters of an image transformation (docs/resources.md#image-transformations): `w`, `h`, `fit`, `format`, `q` on
 * `GET .../files/{fileId}/content` (read from the query string by http/files/image-query.ts),
 * resolved against the stored file into one normalized request whose `key` names the derived
 * image (the cache key and part of the ETag).
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
