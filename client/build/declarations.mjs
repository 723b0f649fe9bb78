/**
 * The published declarations: one `index.d.ts` that carries the router's types and nothing of the
 * server.
 *
 * TypeScript writes the declarations of src/client/*.ts; they import the server's types through
 * src/client/server-types.ts. That module is replaced by the declarations its names resolve to,
 * taken from TypeScript's own declaration output of the server modules, where every procedure's
 * input and output is already spelled out structurally. Two things in there belong to the server
 * alone: the context (entity manager, HTTP request) and the OpenAPI meta. They are erased to
 * `object`, which is what tRPC's root types ask of `ctx` and `meta`; a client uses neither. The
 * modules are then merged into one file that exports what src/client/index.ts exports.
 *
 * Anything else the router's type might come to mention (another server type, a package the
 * client does not depend on) stops the build with a message naming it, rather than shipping a
 * declaration file that fails in the user's project.
 */
import path from 'node:path';
import ts from 'typescript';

/** tRPC types whose type arguments carry `ctx` and `meta` (a router's root types, a procedure's definition). */
const TRPC_CARRIERS = new Set(['TRPCBuiltRouter', 'TRPCQueryProcedure', 'TRPCMutationProcedure', 'TRPCSubscriptionProcedure']);
const SERVER_ONLY_MEMBERS = new Set(['ctx', 'meta']);
/** The one error shape every procedure repeats (84 times today) is declared once under this name. */
const ERROR_SHAPE_NAME = 'ErrorShape';

/**
 * @param {object} options
 * @param {string} options.repoRoot the repository, whose tsconfig.json compiles the server
 * @param {string} options.entry src/client/index.ts
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
    outDir: path.join(repoRoot, '.declarations'),
  };
  const program = ts.createProgram({ rootNames: [entry], options });
  failOnDiagnostics(ts.getPreEmitDiagnostics(program), 'type errors in the client or the server it types');

  const clientDir = path.dirname(entry);
  const doorPath = path.join(clientDir, 'server-types.ts');
  const door = program.getSourceFile(doorPath);
  if (!door) throw new Error(`${rel(repoRoot, doorPath)} is missing: the client must import the server's types through it`);
  const shared = sharedTypes(door, options);

  const context = { repoRoot, options, packages, shared };
  const serverModule = { name: rel(repoRoot, doorPath), statements: [] };
  const byFile = Map.groupBy([...shared.values()], (type) => type.file);
  for (const [file, types] of byFile) {
    const dts = emitDeclarations(program, file);
    serverModule.statements.push(...collect(dts, types.map((type) => type.name), context).map((statement) => ({ statement, sourceFile: dts })));
  }
  serverModule.statements.push(...shareErrorShape(serverModule.statements));

  const clientModules = program
    .getSourceFiles()
    .filter((file) => path.dirname(file.fileName) === clientDir && file.fileName !== doorPath)
    .map((file) => {
      const dts = emitDeclarations(program, file.fileName);
      return { name: rel(repoRoot, file.fileName), entry: file.fileName === entry, statements: dts.statements.map((statement) => ({ statement, sourceFile: dts })) };
    });
  return merge([serverModule, ...clientModules], context);
}

function readCompilerOptions(repoRoot) {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => failOnDiagnostics([diagnostic], 'tsconfig.json') };
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(repoRoot, 'tsconfig.json'), {}, host);
  failOnDiagnostics(parsed.errors, 'tsconfig.json');
  return parsed.options;
}

function failOnDiagnostics(diagnostics, what) {
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length === 0) return;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => '\n' };
  throw new Error(`${what}:\n${ts.formatDiagnostics(errors, host)}`);
}

/** `export type { AppRouter } from '../trpc/router.js'` → key `<router.ts>#AppRouter`. */
function sharedTypes(door, options) {
  const shared = new Map();
  for (const statement of door.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier || !statement.exportClause || !ts.isNamedExports(statement.exportClause)) {
      throw new Error(`${door.fileName}: only \`export type { Name } from '...'\` statements belong here`);
    }
    const file = resolve(statement.moduleSpecifier.text, door.fileName, options);
    for (const element of statement.exportClause.elements) {
      if (element.propertyName) throw new Error(`${door.fileName}: export ${element.name.text} under its own name (no \`as\`)`);
      shared.set(`${file}#${element.name.text}`, { file, name: element.name.text });
    }
  }
  return shared;
}

function resolve(specifier, fromFile, options) {
  const resolved = ts.resolveModuleName(specifier, fromFile, options, ts.sys).resolvedModule;
  if (!resolved) throw new Error(`cannot resolve ${specifier} from ${fromFile}`);
  return resolved.resolvedFileName;
}

/** TypeScript's declaration output for one source file, parsed; `fileName` stays the source's, for resolving its relative imports. */
function emitDeclarations(program, fileName) {
  let text;
  const result = program.emit(program.getSourceFile(fileName), (name, data) => (name.endsWith('.d.ts') ? (text = data) : undefined), undefined, true);
  failOnDiagnostics(result.diagnostics, `declarations of ${fileName}`);
  if (text === undefined) throw new Error(`TypeScript wrote no declarations for ${fileName}`);
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
}

/** The statements of `dts` declaring `names` and, transitively, the local declarations they refer to; server-only parts erased. */
function collect(dts, names, context) {
  const localImports = importedNames(dts);
  const local = new Set(dts.statements.flatMap(declaredNames));
  const missing = names.filter((name) => !local.has(name));
  if (missing.length > 0) throw new Error(`${rel(context.repoRoot, dts.fileName)}: no declaration of ${missing.join(', ')}`);
  const wanted = [...names];
  const taken = new Set();
  const statements = [];
  while (wanted.length > 0) {
    const name = wanted.pop();
    if (taken.has(name)) continue;
    taken.add(name);
    const imported = localImports.get(name);
    if (imported) checkImportedName(imported, dts.fileName, context);
    for (const statement of dts.statements.filter((s) => declaredNames(s).includes(name))) {
      statements.push(erase(statement, dts, context));
      // Follow what the declaration mentions, when this module declares or imports it (the rest is global: Record, Promise…).
      wanted.push(...[...referencedNames(statement)].filter((ref) => local.has(ref) || localImports.has(ref)));
    }
  }
  // Keep the order of the source module.
  return statements.sort((a, b) => a.pos - b.pos);
}

/** Names an `import { … } from '…'` statement of `dts` brings in, with where from. */
function importedNames(dts) {
  const names = new Map();
  for (const statement of dts.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      names.set(element.name.text, { specifier: statement.moduleSpecifier.text, name: (element.propertyName ?? element.name).text });
    }
  }
  return names;
}

function checkImportedName({ specifier, name }, fromFile, context) {
  if (isRelative(specifier)) {
    const key = `${resolve(specifier, fromFile, context.options)}#${name}`;
    if (!context.shared.has(key)) throw notShared(name, specifier, fromFile, context);
    return;
  }
  if (!isAllowedPackage(specifier, context.packages)) throw notAPackage(name, specifier, fromFile, context);
  throw new Error(`${rel(context.repoRoot, fromFile)}: a client-facing declaration imports ${name} from ${specifier} with an import statement; only inline import("…") types are carried over`);
}

/**
 * Replaces, inside `statement`: `ctx` and `meta` in tRPC's type arguments by `object`;
 * `import("<server module>").X` by `X` for the types the door shares; and refuses every other
 * server type and every package the client does not depend on.
 */
function erase(statement, dts, context) {
  const { factory } = ts;
  const result = ts.transform(statement, [
    (transformation) => {
      const visit = (node) => {
        if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
          const specifier = node.argument.literal.text;
          const name = node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier?.getText(dts);
          if (isRelative(specifier)) {
            const key = `${resolve(specifier, dts.fileName, context.options)}#${name}`;
            if (!context.shared.has(key)) throw notShared(name, specifier, dts.fileName, context);
            return factory.createTypeReferenceNode(name, node.typeArguments?.map((argument) => ts.visitNode(argument, visit)));
          }
          if (!isAllowedPackage(specifier, context.packages)) throw notAPackage(name, specifier, dts.fileName, context);
          if (TRPC_CARRIERS.has(name) && node.typeArguments) {
            const typeArguments = node.typeArguments.map((argument) => (ts.isTypeLiteralNode(argument) ? withoutServerMembers(argument) : argument));
            node = factory.updateImportTypeNode(node, node.argument, node.attributes, node.qualifier, typeArguments, node.isTypeOf);
          }
        }
        return ts.visitEachChild(node, visit, transformation);
      };
      return (root) => ts.visitNode(root, visit);
    },
  ]);
  return result.transformed[0];
}

function withoutServerMembers(literal) {
  const { factory } = ts;
  const members = literal.members.map((member) =>
    ts.isPropertySignature(member) && ts.isIdentifier(member.name) && SERVER_ONLY_MEMBERS.has(member.name.text)
      ? factory.updatePropertySignature(member, member.modifiers, member.name, member.questionToken, factory.createKeywordTypeNode(ts.SyntaxKind.ObjectKeyword))
      : member,
  );
  return factory.updateTypeLiteralNode(literal, factory.createNodeArray(members));
}

/**
 * Every router and procedure repeats the error shape of src/trpc/trpc.ts. When they all agree,
 * they refer to one `ErrorShape` instead, which keeps the file a third of its size and readable.
 * Returns the declaration to add (none when they disagree: then they stay inline).
 */
function shareErrorShape(entries) {
  const printer = ts.createPrinter();
  const texts = new Set();
  let first;
  const visitAll = (replace) =>
    entries.map((entry) => {
      const result = ts.transform(entry.statement, [
        (transformation) => {
          const visit = (node) => {
            if (ts.isPropertySignature(node) && ts.isIdentifier(node.name) && node.name.text === 'errorShape' && node.type && ts.isTypeLiteralNode(node.type)) {
              if (!replace) {
                texts.add(printer.printNode(ts.EmitHint.Unspecified, node.type, entry.sourceFile));
                first ??= { type: node.type, sourceFile: entry.sourceFile };
                return node;
              }
              return ts.factory.updatePropertySignature(node, node.modifiers, node.name, node.questionToken, ts.factory.createTypeReferenceNode(ERROR_SHAPE_NAME));
            }
            return ts.visitEachChild(node, visit, transformation);
          };
          return (root) => ts.visitNode(root, visit);
        },
      ]);
      return result.transformed[0];
    });
  visitAll(false);
  if (texts.size !== 1) return [];
  const replaced = visitAll(true);
  entries.forEach((entry, i) => (entry.statement = replaced[i]));
  const alias = ts.factory.createTypeAliasDeclaration(undefined, ERROR_SHAPE_NAME, undefined, first.type);
  return [{ statement: alias, sourceFile: first.sourceFile }];
}

/** One declaration file: package imports merged, sibling imports dropped, `export` exactly on what the entry exports. */
function merge(modules, context) {
  const entry = modules.find((module) => module.entry);
  const exported = exportedNames(entry);
  const imports = new Map();
  const declaredIn = new Map();
  const declarations = [];
  for (const module of modules) {
    for (const { statement, sourceFile } of module.statements) {
      if (ts.isImportDeclaration(statement)) {
        addImport(imports, statement, module, context);
        continue;
      }
      if (ts.isExportDeclaration(statement)) continue;
      const names = declaredNames(statement);
      if (names.length === 0) throw new Error(`${module.name}: cannot merge a ${ts.SyntaxKind[statement.kind]} statement`);
      for (const name of names) {
        const other = declaredIn.get(name);
        if (other && other !== module.name) throw new Error(`${name} is declared both in ${other} and in ${module.name}`);
        declaredIn.set(name, module.name);
      }
      declarations.push({ names, statement, sourceFile });
    }
  }
  const missing = [...exported].filter((name) => !declaredIn.has(name));
  if (missing.length > 0) throw new Error(`${entry.name} exports ${missing.join(', ')}, declared nowhere in the client`);
  // What the exports do not mention (helpers of the client's modules, such as toTabulaError) stays out.
  const needed = new Set(exported);
  for (let grew = true; grew; ) {
    grew = false;
    for (const { names, statement } of declarations) {
      if (!names.some((name) => needed.has(name))) continue;
      for (const name of referencedNames(statement)) {
        if (declaredIn.has(name) && !needed.has(name)) {
          needed.add(name);
          grew = true;
        }
      }
    }
  }
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const body = declarations
    .filter(({ names }) => names.some((name) => needed.has(name)))
    .map(({ names, statement, sourceFile }) => printer.printNode(ts.EmitHint.Unspecified, withExport(statement, names.some((name) => exported.has(name))), sourceFile));
  const header = [...imports].map(([specifier, names]) => {
    const all = [...names];
    if (all.every(([, typeOnly]) => typeOnly)) return `import type { ${all.map(([name]) => name).join(', ')} } from '${specifier}';`;
    return `import { ${all.map(([name, typeOnly]) => (typeOnly ? `type ${name}` : name)).join(', ')} } from '${specifier}';`;
  });
  return `${header.join('\n')}\n\n${body.join('\n\n')}\n`;
}

function addImport(imports, statement, module, context) {
  const specifier = statement.moduleSpecifier.text;
  const clause = statement.importClause;
  const bindings = clause?.namedBindings;
  if (isRelative(specifier)) {
    // A sibling module of the client: its declarations are in the same file now, under the same names.
    for (const element of bindings && ts.isNamedImports(bindings) ? bindings.elements : []) {
      if (element.propertyName) throw new Error(`${module.name}: import ${element.propertyName.text} from ${specifier} under its own name (no \`as\`)`);
    }
    return;
  }
  if (!isAllowedPackage(specifier, context.packages)) throw new Error(`${module.name} imports ${specifier}, which is not a dependency of the client package`);
  if (!clause || clause.name || !bindings || !ts.isNamedImports(bindings)) throw new Error(`${module.name}: only named imports from ${specifier} can be merged`);
  const names = imports.get(specifier) ?? new Map();
  for (const element of bindings.elements) {
    if (element.propertyName) throw new Error(`${module.name}: import ${element.propertyName.text} from ${specifier} under its own name (no \`as\`)`);
    const typeOnly = clause.isTypeOnly || element.isTypeOnly;
    names.set(element.name.text, (names.get(element.name.text) ?? true) && typeOnly);
  }
  imports.set(specifier, names);
}

function exportedNames(entry) {
  const names = new Set();
  for (const { statement } of entry.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (!statement.exportClause || !ts.isNamedExports(statement.exportClause)) throw new Error(`${entry.name}: \`export *\` cannot be merged; name the exports`);
      for (const element of statement.exportClause.elements) {
        if (element.propertyName) throw new Error(`${entry.name}: export ${element.propertyName.text} under its own name (no \`as\`)`);
        names.add(element.name.text);
      }
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      for (const name of declaredNames(statement)) names.add(name);
    }
  }
  return names;
}

function withExport(statement, exported) {
  const { factory } = ts;
  const rest = (ts.getModifiers(statement) ?? []).filter((m) => m.kind !== ts.SyntaxKind.ExportKeyword);
  const declare = ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement) || rest.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
  const modifiers = [...(exported ? [factory.createModifier(ts.SyntaxKind.ExportKeyword)] : []), ...(declare ? [] : [factory.createModifier(ts.SyntaxKind.DeclareKeyword)]), ...rest];
  return factory.replaceModifiers(statement, modifiers);
}

function declaredNames(statement) {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.filter((d) => ts.isIdentifier(d.name)).map((d) => d.name.text);
  if (
    (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement) || ts.isEnumDeclaration(statement)) &&
    statement.name
  ) {
    return [statement.name.text];
  }
  return [];
}

/** Names a declaration refers to in type positions (`Foo<…>`, `typeof foo`, `extends Foo`), by their leftmost identifier. */
function referencedNames(node) {
  const names = new Set();
  const leftmost = (name) => (ts.isIdentifier(name) ? name.text : ts.isQualifiedName(name) ? leftmost(name.left) : ts.isPropertyAccessExpression(name) ? leftmost(name.expression) : undefined);
  const visit = (child) => {
    const name = ts.isTypeReferenceNode(child) ? leftmost(child.typeName) : ts.isTypeQueryNode(child) ? leftmost(child.exprName) : ts.isExpressionWithTypeArguments(child) ? leftmost(child.expression) : undefined;
    if (name) names.add(name);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return names;
}

function isRelative(specifier) {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

function isAllowedPackage(specifier, packages) {
  return packages.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}

function notShared(name, specifier, fromFile, context) {
  return new Error(
    `${rel(context.repoRoot, fromFile)}: the client's types would refer to ${name} from ${specifier}, a server module. ` +
      'Export it through src/client/server-types.ts if clients may see it, or keep it out of procedure inputs, outputs and errors.',
  );
}

function notAPackage(name, specifier, fromFile, context) {
  return new Error(
    `${rel(context.repoRoot, fromFile)}: the client's types would refer to ${name} from the package ${specifier}, which @tabula/client does not depend on. ` +
      'Procedure inputs and outputs must be plain data types.',
  );
}

function rel(repoRoot, file) {
  return path.relative(repoRoot, file);
}
