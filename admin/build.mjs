// `npm install`'s postinstall: builds the console (admin/dist) so that `npm install && npm start`
// serves /admin with no other step. An install without the dev dependencies (the Docker image's
// production layer, `npm ci --omit=dev`) has no Vite: it skips the build, and the image takes the
// console built in its build stage.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
let vite;
try {
  vite = await import('vite');
} catch {
  console.log('tabula: console build skipped (Vite is not installed: an install without dev dependencies)');
  process.exit(0);
}
if (!existsSync(`${here}index.html`)) {
  console.log('tabula: console build skipped (admin/index.html is not here)');
  process.exit(0);
}
await vite.build({ root: here, configFile: `${here}vite.config.ts`, logLevel: 'warn' });
console.log('tabula: console built into admin/dist');
