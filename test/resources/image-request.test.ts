import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/app-error.js';
import { readImageQuery } from '../../src/http/files/image-query.js';
import { resolveImageRequest, type ImageQuery } from '../../src/modules/images/image-request.js';
import { ImageTransformer } from '../../src/modules/images/image-transformer.js';
import { planResize } from '../../src/modules/images/resize-plan.js';
import { concurrencyLimit } from '../../src/shared/concurrency-limit.js';

/** The pure parts of image transformations: parameters, defaults, cache keys, the resize plan, the concurrency limit. */

const badRequest = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    return (error as AppError).message;
  }
  throw new Error('expected a 400');
};

describe('image parameters', () => {
  it('no transformation parameter: null (the plain download), whatever else the query holds', () => {
    expect(readImageQuery({})).toBeNull();
    expect(readImageQuery({ v: '3', download: '1' })).toBeNull();
  });

  it('reads each parameter and lists those given', () => {
    expect(readImageQuery({ w: '400', h: '300', fit: 'contain', format: 'avif', q: '55', x: 'y' })).toEqual({
      given: ['w', 'h', 'fit', 'format', 'q'],
      width: 400,
      height: 300,
      fit: 'contain',
      format: 'avif',
      quality: 55,
    });
    expect(readImageQuery({ q: '1' })).toEqual({ given: ['q'], quality: 1 });
  });

  it('repeated or structured values are refused naming the parameter', () => {
    expect(badRequest(() => readImageQuery({ w: ['1', '2'] }))).toBe('w must be given once, as a plain value');
    expect(badRequest(() => readImageQuery({ fit: { a: 'b' } }))).toMatch(/^fit /);
  });

  it('defaults: cover with both dimensions, inside otherwise; the original format; quality 80 unless PNG', () => {
    const resolve = (query: Record<string, string>, type = 'image/jpeg') => resolveImageRequest(readImageQuery(query)!, type);
    expect(resolve({ w: '10', h: '20' })).toEqual({ width: 10, height: 20, fit: 'cover', format: 'jpeg', quality: 80, key: 'v1-w10-h20-cover-q80.jpeg' });
    expect(resolve({ w: '10', fit: 'cover' })).toEqual({ width: 10, fit: 'inside', format: 'jpeg', quality: 80, key: 'v1-w10-q80.jpeg' });
    expect(resolve({ h: '10' }, 'image/webp').key).toBe('v1-h10-q80.webp');
    expect(resolve({ format: 'png', q: '30' }).key).toBe('v1.png');
    expect(resolve({ w: '5' }, 'image/gif').key).toBe('v1-w5.png');
    expect(resolve({ w: '5' }, 'image/tiff').format).toBe('png');
    expect(resolve({ w: '5' }, 'IMAGE/JPG').format).toBe('jpeg');
    expect(resolve({ w: '5' }, 'image/avif').key).toBe('v1-w5-q80.avif');
  });

  it('one key per distinct result: parameters that change nothing do not change the key', () => {
    const keyOf = (query: Record<string, string>) => resolveImageRequest(readImageQuery(query)!, 'image/png').key;
    expect(keyOf({ w: '10', fit: 'contain' })).toBe(keyOf({ w: '10' }));
    expect(keyOf({ w: '10', h: '10' })).toBe(keyOf({ w: '10', h: '10', fit: 'cover' }));
    expect(keyOf({ w: '10', h: '10', fit: 'inside' })).not.toBe(keyOf({ w: '10', h: '10' }));
    expect(keyOf({ format: 'webp' })).toBe(keyOf({ format: 'webp', q: '80' }));
  });

  it('a file that is not an image: 400 naming the first parameter given and the file’s type', () => {
    const query: ImageQuery = { given: ['format', 'q'], format: 'webp', quality: 3 };
    expect(badRequest(() => resolveImageRequest(query, 'application/pdf'))).toBe(
      'format: only image files can be transformed (image/jpeg, image/png, image/webp, image/avif, image/gif, image/tiff); this file is application/pdf',
    );
    badRequest(() => resolveImageRequest(query, 'image/svg+xml'));
    badRequest(() => resolveImageRequest(query, 'image/heic'));
  });
});

describe('resize plan', () => {
  const size = fc.record({ width: fc.integer({ min: 1, max: 5000 }), height: fc.integer({ min: 1, max: 5000 }) });
  const dim = fc.option(fc.integer({ min: 1, max: 4096 }), { nil: undefined });
  const fit = fc.constantFrom('cover' as const, 'contain' as const, 'inside' as const);

  it('never scales the original up, and keeps the requested aspect ratio for cover and contain', () => {
    fc.assert(
      fc.property(size, dim, dim, fit, (original, width, height, requestedFit) => {
        const both = width !== undefined && height !== undefined;
        const plan = planResize(original, { width, height, fit: both ? requestedFit : 'inside' });
        if (plan === null) return;
        if (plan.fit === 'inside') {
          // libvips fits the original inside the box: the box must shrink it.
          const scale = Math.min(plan.width === undefined ? Infinity : plan.width / original.width, plan.height === undefined ? Infinity : plan.height / original.height);
          expect(scale).toBeLessThan(1);
          return;
        }
        const { width: w, height: h } = plan as { width: number; height: number };
        const scale = plan.fit === 'cover' ? Math.max(w / original.width, h / original.height) : Math.min(w / original.width, h / original.height);
        // At most the original's resolution, give or take the rounding to whole pixels.
        expect(scale).toBeLessThanOrEqual(1 + 0.5 / Math.min(original.width, original.height));
        // The requested box scaled by one factor, each side rounded (or at least one pixel).
        if (Math.min(w, h) > 1) expect(Math.abs(w * height! - h * width!)).toBeLessThanOrEqual(0.5 * (width! + height!));
        expect(w).toBeLessThanOrEqual(width!);
        expect(h).toBeLessThanOrEqual(height!);
      }),
    );
  });

  it('examples: cover and contain beyond the original', () => {
    expect(planResize({ width: 300, height: 200 }, { width: 600, height: 600, fit: 'cover' })).toEqual({ width: 200, height: 200, fit: 'cover' });
    expect(planResize({ width: 300, height: 200 }, { width: 600, height: 600, fit: 'contain' })).toEqual({ width: 300, height: 300, fit: 'contain' });
    expect(planResize({ width: 300, height: 200 }, { width: 150, height: 400, fit: 'cover' })).toEqual({ width: 75, height: 200, fit: 'cover' });
    expect(planResize({ width: 300, height: 200 }, { width: 100, height: 100, fit: 'cover' })).toEqual({ width: 100, height: 100, fit: 'cover' });
    expect(planResize({ width: 300, height: 200 }, { width: 600, fit: 'inside' })).toBeNull();
    expect(planResize({ width: 300, height: 200 }, { fit: 'inside' })).toBeNull();
  });
});

describe('concurrency limit', () => {
  it('runs at most `max` at once, first come first served, and goes on after failures', async () => {
    const limit = concurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const gates = Array.from({ length: 6 }, () => Promise.withResolvers<void>());
    const runs = gates.map((gate, i) =>
      limit.run(async () => {
        running++;
        peak = Math.max(peak, running);
        order.push(i);
        await gate.promise;
        running--;
        if (i === 1) throw new Error('boom');
        return i;
      }),
    );
    await Promise.resolve();
    expect({ running: limit.running, waiting: limit.waiting }).toEqual({ running: 2, waiting: 4 });
    for (const gate of gates) gate.resolve();
    const results = await Promise.allSettled(runs);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect({ running: limit.running, waiting: limit.waiting }).toEqual({ running: 0, waiting: 0 });
  });

  it('a burst of transformations loads at most IMAGE_CONCURRENCY originals at once', async () => {
    const transformer = new ImageTransformer({ maxPixels: 1e6, concurrency: 2 });
    const original = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#808080' } }).png().toBuffer();
    const request = resolveImageRequest({ given: ['w'], width: 30 }, 'image/png');
    const seen: { running: number; waiting: number }[] = [];
    const burst = Array.from({ length: 8 }, () =>
      transformer.transform(async () => {
        seen.push(transformer.load);
        return original;
      }, request),
    );
    const images = await Promise.all(burst);
    expect(images.map((i) => i.width)).toEqual(Array(8).fill(30));
    expect(Math.max(...seen.map((s) => s.running))).toBe(2);
    expect(seen.some((s) => s.waiting > 0)).toBe(true);
    expect(transformer.load).toEqual({ running: 0, waiting: 0 });
  });
});
