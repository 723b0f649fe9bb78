/**
 * `npm run bench -- --only images` (targets: docs/performance.md#image-transformations): 12-megapixel JPEGs uploaded through the
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

/** Gaussian noise drawn at 1/`scale` of the size and enlarged smoothly: structure of that size. */
async function layer(scale: number, sigma: number, mean: number): Promise<Buffer> {
  const create = { width: Math.round(WIDTH / scale), height: Math.round(HEIGHT / scale), channels: 3 as const, background: '#000000' };
  const noise = await sharp({ create: { ...create, noise: { type: 'gaussian', mean, sigma } } }).raw().toBuffer({ resolveWithObject: true });
  return sharp(noise.data, { raw: noise.info }).resize(WIDTH, HEIGHT, { kernel: 'cubic' }).png({ compressionLevel: 0 }).toBuffer();
}

/**
 * A 4000×3000 JPEG of about 4.2 MB, the size of a 12-megapixel phone photo: large colour areas,
 * a texture and a fine grain (a flat colour would make the decoder's and encoder's work
 * unusually easy). Its 400-pixel WebP is about 32 KB, at the upper end of real photos'.
 */
async function photo(seed: number): Promise<Buffer> {
  const grain = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 10 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return sharp(await layer(64, 70, 100 + seed * 5))
    .composite([{ input: await layer(4, 30, 128), blend: 'overlay' }, { input: grain, blend: 'overlay' }])
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
    // The ceiling on this machine at this moment: the plain download of a file of the same bytes.
    const copy = new FormData();
    copy.append('file', new Blob([await (await fetch(thumbnail(files[0]), { headers: auth })).arrayBuffer()], { type: 'image/webp' }), 'thumbnail.webp');
    const uploaded = await fetch(`${api}/v1/${fixture.projectId}/files`, { method: 'POST', body: copy, headers: auth });
    files.push(((await uploaded.json()) as { id: string }).id);
    const load = { duration: options.duration, connections: options.connections };
    // Right after the transformations the process is still slow for a few seconds (their
    // garbage, code not yet optimized): 3 s of repeats first, not measured.
    await measure({ url: thumbnail(files[0]), headers: auth }, { ...load, duration: 3, warmUp: 0 });
    log(`images: the plain download of a file of the same bytes, then cached repeats of one thumbnail, ${options.connections} connections`);
    const plain = await measure({ url: `${api}/v1/${fixture.projectId}/files/${files.at(-1)}/content`, headers: auth }, load);
    const cached = await measure({ url: thumbnail(files[0]), headers: auth }, load);
    return { originalBytes, megapixels: (WIDTH * HEIGHT) / 1e6, firstMs, thumbnailBytes, cached, plain };
  } finally {
    for (const id of files) await fetch(`${api}/v1/${fixture.projectId}/files/${id}`, { method: 'DELETE', headers: auth });
  }
}
