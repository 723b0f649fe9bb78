/**
 * Builds @tabula/client into client/dist: `index.js`, the client of client/src as one ES module
 * that imports only @trpc/client and @trpc/server, and `index.d.ts`, its declarations with the
 * router's types spelled out (build/declarations.mjs).
 *
 * It runs inside the Tabula repository after `npm ci` at its root, with the root's TypeScript,
 * esbuild and tsconfig.json: the declarations come from type-checking the server's router.
 * `npm --prefix client run build`, or `npm pack` / `npm publish` in client/ (prepack).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { checkBundle, checkDeclarations } from './build/check.mjs';
import { buildDeclarations } from './build/declarations.mjs';

const clientRoot = import.meta.dirname;
const repoRoot = path.dirname(clientRoot);
const sourceDir = 'client/src';
const entry = path.join(repoRoot, sourceDir, 'index.ts');
const dist = path.join(clientRoot, 'dist');
const manifest = JSON.parse(await readFile(path.join(clientRoot, 'package.json'), 'utf8'));
const packages = Object.keys(manifest.dependencies ?? {});
const banner = `// ${manifest.name} ${manifest.version}: built from ${sourceDir} of the Tabula repository by client/build.mjs.`;

await rm(dist, { recursive: true, force: true });
await mkdir(dist);

const { metafile } = await esbuild.build({
  absWorkingDir: repoRoot,
  entryPoints: [entry],
  outfile: path.join(dist, 'index.js'),
  bundle: true,
  format: 'esm',
  // Neither Node nor the browser: the bundle must run in both.
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  tsconfig: path.join(repoRoot, 'tsconfig.json'),
  banner: { js: banner },
  metafile: true,
  logLevel: 'warning',
});
checkBundle(metafile, sourceDir, packages);

const declarations = buildDeclarations({ repoRoot, entry, packages });
const declarationFile = path.join(dist, 'index.d.ts');
await writeFile(declarationFile, `${banner}\n${declarations}`);
checkDeclarations(declarationFile, packages);

console.log(`${manifest.name} ${manifest.version} built into ${path.relative(process.cwd(), dist) || '.'}`);
