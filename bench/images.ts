/**
 * `npm run bench -- --only images` (SPEC §16 targets): 12-megapixel JPEGs uploaded through the
 * API, then
 * 1. the first request of a 400-pixel-wide WebP thumbnail of each (computed, stored), one at a
 *    time: target < 500 ms;
 * 2. the same thumbnail requested again and again (streamed from storage) under autocannon:
 *    target >= 1,000 req/s; beside it, the plain download of a file of the same bytes.
 * The files are deleted at the end (their bytes and derived images with them).
 */
import sharp from 'sharp';
import { measure, type Measurement } from './load.js';
import type { Fixture } from './setup.js';

export interface ImagesResult {
  originalBytes: number;
  megapixels: number;
  /** Time to the last byte of each first request, in ms. */
  firstMs: number[];
  thumbnailBytes: number;
  cached: Measurement;
  /** The plain download (no parameters) of a file holding the thumbnail's bytes. */
  plain: Measurement;
}

/** Distinct originals (distinct bytes: each first request really computes). */
const ORIGINALS = 5;
const WIDTH = 4000;
const HEIGHT = 3000;

/**
 * A 4000×3000 JPEG of about 4.6 MB, the size of a 12-megapixel phone photo: coarse colour noise
 * with a fine grain (a flat colour would be an unusually easy case for the decoder).
 */
async function photo(seed: number): Promise<Buffer> {
  const noise = await sharp({ create: { width: WIDTH / 8, height: HEIGHT / 8, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 100 + seed * 10, sigma: 60 } } })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const grain = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 12 } } }).png().toBuffer();
  return sharp(noise.data, { raw: noise.info })
    .resize(WIDTH, HEIGHT, { kernel: 'cubic' })
    .blur(3)
    .composite([{ input: grain, blend: 'overlay' }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

export async function benchImages(options: { api: string; fixture: Fixture; duration: number; connections: number; log: (line: string) => void }): Promise<ImagesResult> {
  const { api, fixture, log } = options;
  const auth = { authorization: `Bearer ${fixture.writeKey}` };
  const files: string[] = [];
  let originalBytes = 0;
  try {
    for (let i = 0; i < ORIGINALS; i++) {
      const bytes = await photo(i);
      originalBytes = bytes.length;
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'image/jpeg' }), `photo-${i}.jpg`);
      const res = await fetch(`${api}/v1/${fixture.projectId}/files`, { method: 'POST', body: form, headers: auth });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      files.push(((await res.json()) as { id: string }).id);
    }
    log(`images: ${ORIGINALS} JPEGs of ${WIDTH}×${HEIGHT} (${(originalBytes / 1e6).toFixed(1)} MB) uploaded; first requests of ?w=400&format=webp`);
    const thumbnail = (id: string) => `${api}/v1/${fixture.projectId}/files/${id}/content?w=400&format=webp`;
    const firstMs: number[] = [];
    let thumbnailBytes = 0;
    for (const id of files) {
      const started = performance.now();
      const res = await fetch(thumbnail(id), { headers: auth });
      const body = Buffer.from(await res.arrayBuffer());
      firstMs.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`thumbnail: ${res.status} ${body.toString()}`);
      thumbnailBytes = body.length;
    }
    log(`images: cached repeats of one thumbnail, ${options.connections} connections`);
    const cached = await measure({ url: thumbnail(files[0]), headers: auth }, { duration: options.duration, connections: options.connections });
    // The ceiling on this machine at this moment: the plain download of a file of the same bytes.
    const copy = new FormData();
    copy.append('file', new Blob([await (await fetch(thumbnail(files[0]), { headers: auth })).arrayBuffer()], { type: 'image/webp' }), 'thumbnail.webp');
    const uploaded = await fetch(`${api}/v1/${fixture.projectId}/files`, { method: 'POST', body: copy, headers: auth });
    files.push(((await uploaded.json()) as { id: string }).id);
    log('images: the plain download of a file of the same bytes');
    const plain = await measure({ url: `${api}/v1/${fixture.projectId}/files/${files.at(-1)}/content`, headers: auth }, { duration: options.duration, connections: options.connections });
    return { originalBytes, megapixels: (WIDTH * HEIGHT) / 1e6, firstMs, thumbnailBytes, cached, plain };
  } finally {
    for (const id of files) await fetch(`${api}/v1/${fixture.projectId}/files/${id}`, { method: 'DELETE', headers: auth });
  }
}
