import type { Fit } from './image-request.js';

export interface Size {
  width: number;
  height: number;
}

/** What libvips is asked to do: fill `width` × `height` (either may be absent) the `fit` way. */
export interface ResizePlan {
  width?: number;
  height?: number;
  fit: Fit;
}

/**
 * The resize of an original of `size` (as displayed, after EXIF rotation) that a request asks
 * for, or null when the original's size is kept. Images are never scaled up (as imgproxy and
 * Next.js do by default): when filling the requested box would enlarge the original, the box
 * is scaled down by that same factor instead, so that `cover` and `contain` keep the requested
 * aspect ratio at the original's resolution (a 600×600 cover of a 300×200 image is 200×200; a
 * 600×600 contain is 300×300 with the image whole inside it). A single dimension, or `inside`,
 * then just keeps the original.
 */
export function planResize(size: Size, request: { width?: number; height?: number; fit: Fit }): ResizePlan | null {
  const { width, height } = request;
  if (width === undefined && height === undefined) return null;
  if (width === undefined || height === undefined || request.fit === 'inside') {
    const scales = [width === undefined ? Infinity : width / size.width, height === undefined ? Infinity : height / size.height];
    if (Math.min(...scales) >= 1) return null;
    return { ...(width === undefined ? {} : { width }), ...(height === undefined ? {} : { height }), fit: 'inside' };
  }
  const scaleX = width / size.width;
  const scaleY = height / size.height;
  // The factor the fit would scale the original by: cover fills the box, contain fits in it.
  const scale = request.fit === 'cover' ? Math.max(scaleX, scaleY) : Math.min(scaleX, scaleY);
  if (scale <= 1) return { width, height, fit: request.fit };
  return { width: Math.max(1, Math.round(width / scale)), height: Math.max(1, Math.round(height / scale)), fit: request.fit };
}
