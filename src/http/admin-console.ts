import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';

/**
 * The console's own policy, stricter than the API's: scripts, styles, fonts and API calls from
 * this origin only, images also from `blob:` (previews of uploads and of stored images, read
 * through the API with the credential) and `data:`; no inline script or style, no plugin, no
 * framing.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed file names (Vite's `assets/<name>-<hash>.js`): a changed file is a new URL. */
const ASSET_MAX_AGE_S = 365 * 24 * 3600;

/**
 * Where `npm install` builds the console (admin/dist): beside src/ when running the sources,
 * two levels up from dist/src/http when running the build.
 */
export function consoleDirectory(): string | null {
  for (const candidate of ['../../admin/dist', '../../../admin/dist']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${path}/index.html`)) return path;
  }
  return null;
}

/**
 * `GET /admin/...` (docs/console.md#served-with): the built single-page app. Assets are cached for a year (their
 * names change with their content); index.html is revalidated each time, and answers every
 * other path under /admin so that the app's own addresses survive a reload.
 */
export function adminConsole(directory: string | null = consoleDirectory()): express.Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    next();
  });
  if (!directory) {
    router.use((_req, res) => {
      res.status(503).type('text/plain').send('The console is not built: run `npm install` (or `npm run build --workspace admin`) in the Tabula directory.\n');
    });
    return router;
  }
  router.use('/assets', express.static(`${directory}/assets`, { immutable: true, maxAge: ASSET_MAX_AGE_S * 1000, index: false }), (_req, res) => {
    // An asset that is not here (an older build's name, say) is not a page: no index.html.
    res.status(404).type('text/plain').send('Not found\n');
  });
  const index: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(`${directory}/index.html`);
  };
  router.use(index);
  return router;
}
