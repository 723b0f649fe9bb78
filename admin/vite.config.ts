import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console is served by the API at /admin (src/http/admin-console.ts). Every script and
 * stylesheet is a file of its own under /admin/assets/ with a content hash in its name: no
 * inline script or style (the Content-Security-Policy forbids them), nothing from a CDN.
 */
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  resolve: {
    alias: { 'tabula/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1200,
  },
});
