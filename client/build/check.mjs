/**
 * Checks on what the build wrote, before anything is packed: the JavaScript bundles only the
 * client's own modules and imports only the package's dependencies (no server code, no `node:`
 * module, so it runs in a browser bundle as well as in Node); the declarations type-check on
 * their own, strictly and with library checking on, seeing nothing but TypeScript's libraries
 * and the dependencies.
 */
import path from 'node:path';
import ts from 'typescript';
import { failOnDiagnostics, isFromPackages } from './syntax.mjs';

/**
 * @param {import('esbuild').Metafile} metafile esbuild's account of the JavaScript bundle (paths relative to the repository)
 * @param {string} clientSourceDir the client's sources, relative to the repository (client/src)
 * @param {string[]} packages the package's dependencies
 */
export function checkBundle(metafile, clientSourceDir, packages) {
  const foreign = Object.keys(metafile.inputs).filter((input) => !input.startsWith(`${clientSourceDir}/`));
  if (foreign.length > 0) throw new Error(`the client bundle would carry modules from outside ${clientSourceDir}: ${foreign.join(', ')} (import server values? only types may cross, through server-types.ts)`);
  const imports = Object.values(metafile.outputs).flatMap((output) => output.imports);
  const wrong = imports.filter((entry) => !entry.external || !isFromPackages(entry.path, packages));
  if (wrong.length > 0) throw new Error(`the client bundle imports ${wrong.map((entry) => entry.path).join(', ')}; only ${packages.join(', ')} may be imported`);
}

/**
 * TypeScript's libraries a consumer needs anyway for tRPC's own declarations (they mention
 * fetch, AbortSignal, ReadableStream and Disposable); the client's declarations must need no more.
 */
const CONSUMER_LIBS = ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'];

/**
 * @param {string} declarationFile dist/index.d.ts
 * @param {string[]} packages the package's dependencies
 */
export function checkDeclarations(declarationFile, packages) {
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: CONSUMER_LIBS,
    types: [],
  };
  const program = ts.createProgram({ rootNames: [declarationFile], options });
  failOnDiagnostics(ts.getPreEmitDiagnostics(program), `${declarationFile} does not type-check on its own`);
  const reached = program
    .getSourceFiles()
    .filter((file) => !program.isSourceFileDefaultLibrary(file) && path.resolve(file.fileName) !== path.resolve(declarationFile))
    .filter((file) => !packages.some((name) => file.fileName.includes(`/node_modules/${name}/`)));
  if (reached.length > 0) throw new Error(`${declarationFile} reaches files outside its dependencies: ${reached.map((file) => file.fileName).join(', ')}`);
}
