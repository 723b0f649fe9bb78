import sharp, { type Metadata, type Sharp } from 'sharp';
import { unprocessable } from '../../errors/app-error.js';
import { concurrencyLimit } from '../../shared/concurrency-limit.js';
import { OUTPUT_TYPES, type ImageRequest } from './image-request.js';
import { planResize } from './resize-plan.js';

export interface TransformedImage {
  data: Buffer;
  mimeType: string;
  width: number;
  height: number;
}

/**
 * Decoders an original may go through, by what libvips finds in its bytes (not by the stored
 * type, which the uploader chose): SVG, PDF and the other loaders of sharp's build never run
 * on uploaded bytes. AVIF is `heif` with AV1 compression.
 */
const DECODERS = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'heif']);

/**
 * Longest libvips may work on one image before it is refused (422) rather than left to hold a
 * slot and its client. The worst case measured on the 2-core development machine
 * (2026-11-26): a 100-megapixel PNG of noise to a 4096-pixel AVIF, 5.9 s (to WebP 4.3 s, to a
 * 400-pixel WebP 1.2 s).
 */
const TIMEOUT_SECONDS = 30;

/**
 * libaom's slowest settings are for offline encoding: at sharp's default effort (4) a
 * 4096×4096 AVIF took 21 s (smooth picture) to 182 s (noise) on the 2-core development
 * machine (2026-11-26), and the timeout above cannot stop it (libheif encodes outside the
 * libvips progress it watches). Effort 0 took 0.75 s and 6.6 s for files 5 % larger or less.
 */
const AVIF_EFFORT = 0;

/**
 * 422: the request is well-formed but this file's bytes cannot be transformed (too many
 * pixels, not an image of a kind we read, corrupt). `field` is `file`, the thing at fault.
 */
export const unprocessableImage = (message: string) => unprocessable(message, [{ field: 'file', message }]);

/** What a client is told of bytes libvips cannot read; the decoder's own text stays in the log. */
const NOT_TRANSFORMABLE = 'the file is not an image that can be transformed';

/** A 422 that keeps what libvips said as its cause, for the log only. */
const refusedBy = (message: string, cause: unknown) => Object.assign(unprocessableImage(message), { cause });

/** What the decoder found, or 422 when it is not an image we transform or is too large. */
async function inspect(input: Buffer, maxPixels: number): Promise<Metadata> {
  let metadata: Metadata;
  try {
    // (sharp throws at once, not through the promise, for an empty buffer.)
    metadata = await sharp(input).metadata();
  } catch (error) {
    throw refusedBy(NOT_TRANSFORMABLE, error);
  }
  if (!DECODERS.has(metadata.format) || (metadata.format === 'heif' && metadata.compression !== 'av1')) {
    throw unprocessableImage(`${NOT_TRANSFORMABLE}: it holds ${metadata.format === 'heif' ? `HEIF/${metadata.compression}` : metadata.format} data`);
  }
  const pixels = metadata.width * metadata.height;
  if (pixels > maxPixels) {
    throw unprocessableImage(`the image has ${metadata.width}×${metadata.height} = ${pixels} pixels, more than IMAGE_MAX_PIXELS (${maxPixels})`);
  }
  return metadata;
}

/** The whole transformation of an inspected original, as libvips will run it. */
function pipelineFor(input: Buffer, metadata: Metadata, request: ImageRequest, maxPixels: number): Sharp {
  // failOn stays at its default ('warning'): a truncated or damaged image is refused rather
  // than shown half grey.
  let image = sharp(input, { limitInputPixels: maxPixels, autoOrient: true });
  const plan = planResize(metadata.autoOrient, request);
  if (plan) {
    // contain's padding: transparent, or white in JPEG (which has no alpha; sharp flattens
    // before it resizes, so the padding has to be opaque already).
    const background = request.format === 'jpeg' ? { r: 255, g: 255, b: 255, alpha: 1 } : { r: 255, g: 255, b: 255, alpha: 0 };
    image = image.resize({ ...plan, withoutEnlargement: true, background });
  }
  return encode(image, request).timeout({ seconds: TIMEOUT_SECONDS });
}

function encode(image: Sharp, request: ImageRequest): Sharp {
  const quality = request.quality;
  switch (request.format) {
    case 'jpeg':
      // JPEG has no alpha: transparent areas become white, not black.
      return image.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true });
    case 'webp':
      return image.webp({ quality });
    case 'avif':
      return image.avif({ quality, effort: AVIF_EFFORT });
    case 'png':
      return image.png();
  }
}

/**
 * Transformations with sharp (libvips), at most `concurrency` at a time in this process: the
 * original's bytes are loaded only once a slot is free, so a burst of first requests for
 * distinct images holds at most `concurrency` originals and decodes in memory. Each image is
 * checked against `maxPixels` from its header before any pixel is decoded (decompression
 * bombs), and libvips enforces the same limit while decoding.
 */
export class ImageTransformer {
  private readonly limit: ReturnType<typeof concurrencyLimit>;

  constructor(private readonly options: { maxPixels: number; concurrency: number }) {
    this.limit = concurrencyLimit(options.concurrency);
    // libvips' operation cache serves repeated identical pipelines, which distinct images
    // never are: it would only hold memory.
    sharp.cache(false);
  }

  /** Loads the original (`load`) in a free slot and transforms it; 422 when it cannot be. */
  transform(load: () => Promise<Buffer>, request: ImageRequest): Promise<TransformedImage> {
    return this.limit.run(async () => {
      const input = await load();
      const metadata = await inspect(input, this.options.maxPixels);
      try {
        const { data, info } = await pipelineFor(input, metadata, request, this.options.maxPixels).toBuffer({ resolveWithObject: true });
        return { data, mimeType: OUTPUT_TYPES[request.format], width: info.width, height: info.height };
      } catch (error) {
        throw refusedBy(`${NOT_TRANSFORMABLE}: its data could not be decoded`, error);
      }
    });
  }

  /** Transformations running and waiting (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.limit.running, waiting: this.limit.waiting };
  }
}
