import { badRequest } from '../../errors/app-error.js';
import { FITS, IMAGE_PARAMS, MAX_DIMENSION, OUTPUT_FORMATS, type ImageParam, type ImageQuery } from '../../modules/images/image-request.js';

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
