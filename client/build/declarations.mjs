/**
 * The published declarations: one `index.d.ts` that carries the router's types and nothing of the
 * server.
 *
 * TypeScript writes the declarations of client/src/*.ts; they import the server's types through
 * client/src/server-types.ts. That module is replaced by the declarations its names resolve to,
 * taken from TypeScript's own declaration output of the server modules, where every procedure's
 * input and output is already spelled out structurally, with what belongs to the server alone
 * erased (server-types.mjs). The modules are then merged into one file that exports what
 * client/src/index.ts exports (merge.mjs).
 */
import path from 'node:path';
import ts from 'typescript';
import { mergeModules } from './merge.mjs';
import { serverDeclarations } from './server-types.mjs';
import { failOnDiagnostics } from './syntax.mjs';

/**
 * @param {object} options
 * @param {string} options.repoRoot the repository, whose tsconfig.json compiles the server
 * @param {string} options.entry client/src/index.ts
 * @param {string[]} options.packages packages the declarations may import (the package's dependencies)
 * @returns {string} the text of index.d.ts
 */
export function buildDeclarations({ repoRoot, entry, packages }) {
  const options = {
    ...readCompilerOptions(repoRoot),
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    rootDir: repoRoot,
    // Nothing is written there: emitted text is kept in memory.
    outDir: path.join(repoRoot, '.declarations'),
  };
  const program = ts.createProgram({ rootNames: [entry], options });
  failOnDiagnostics(ts.getPreEmitDiagnostics(program), 'type errors in the client or the server it types');
  const emit = (fileName) => emitDeclarations(program, fileName);

  const clientDir = path.dirname(entry);
  const doorPath = path.join(clientDir, 'server-types.ts');
  const door = program.getSourceFile(doorPath);
  if (!door) throw new Error(`${path.relative(repoRoot, doorPath)} is missing: the client must import the server's types through it`);
  const serverModule = { name: path.relative(repoRoot, doorPath), statements: serverDeclarations({ door, emit, options, packages, repoRoot }) };

  const clientModules = program
    .getSourceFiles()
    .filter((file) => path.dirname(file.fileName) === clientDir && file.fileName !== doorPath)
    .map((file) => {
      const dts = emit(file.fileName);
      return { name: path.relative(repoRoot, file.fileName), entry: file.fileName === entry, statements: dts.statements.map((statement) => ({ statement, sourceFile: dts })) };
    });
  return mergeModules([serverModule, ...clientModules], packages);
}

function readCompilerOptions(repoRoot) {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => failOnDiagnostics([diagnostic], 'tsconfig.json') };
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(repoRoot, 'tsconfig.json'), {}, host);
  failOnDiagnostics(parsed.errors, 'tsconfig.json');
  return parsed.options;
}

/** TypeScript's declaration output for one source file, parsed; `fileName` stays the source's, for resolving its relative imports. */
function emitDeclarations(program, fileName) {
  let text;
  const result = program.emit(program.getSourceFile(fileName), (name, data) => (name.endsWith('.d.ts') ? (text = data) : undefined), undefined, true);
  failOnDiagnostics(result.diagnostics, `declarations of ${fileName}`);
  if (text === undefined) throw new Error(`TypeScript wrote no declarations for ${fileName}`);
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
}
