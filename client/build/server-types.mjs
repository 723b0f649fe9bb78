/**
 * The declarations that stand in for client/src/server-types.ts in the published package.
 *
 * For each name that module re-exports, the statement declaring it is taken from TypeScript's
 * declaration output of its server module, with the local declarations it refers to (`AppRouter`
 * is `typeof appRouter`). Two things in the router's type belong to the server alone: the context
 * (entity manager, HTTP request) and the OpenAPI meta. They become `object`, which is what tRPC's
 * root types ask of `ctx` and `meta`; a client uses neither.
 *
 * Anything else the router's type might come to mention (another server type, a package the
 * client does not depend on) stops the build with a message naming it, rather than shipping a
 * declaration file that fails in the user's project.
 */
import path from 'node:path';
import ts from 'typescript';
import { declaredNames, isFromPackages, isRelative, referencedNames } from './syntax.mjs';

/** tRPC types whose type arguments carry `ctx` and `meta` (a router's root types, a procedure's definition). */
const TRPC_CARRIERS = new Set(['TRPCBuiltRouter', 'TRPCQueryProcedure', 'TRPCMutationProcedure', 'TRPCSubscriptionProcedure']);
const SERVER_ONLY_MEMBERS = new Set(['ctx', 'meta']);
/** Every router and procedure repeats the error shape of src/trpc/trpc.ts; it is declared once under this name. */
const ERROR_SHAPE_NAME = 'ErrorShape';

/**
 * @param {object} options
 * @param {ts.SourceFile} options.door client/src/server-types.ts
 * @param {(fileName: string) => ts.SourceFile} options.emit TypeScript's declarations of a source file
 * @param {ts.CompilerOptions} options.options for resolving the server's relative imports
 * @param {string[]} options.packages packages the declarations may import
 * @param {string} options.repoRoot for messages
 * @returns {{ statement: ts.Statement, sourceFile: ts.SourceFile }[]}
 */
export function serverDeclarations({ door, emit, options, packages, repoRoot }) {
  const shared = sharedTypes(door, options);
  const context = { options, packages, repoRoot, shared, door: door.fileName };
  const entries = [];
  for (const [file, types] of Map.groupBy([...shared.values()], (type) => type.file)) {
    const dts = emit(file);
    const names = types.map((type) => type.name);
    entries.push(...collect(dts, names, context).map((statement) => ({ statement, sourceFile: dts })));
  }
  return [...entries, ...shareErrorShape(entries)];
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
      shared.set(key(file, element.name.text), { file, name: element.name.text });
    }
  }
  return shared;
}

function key(file, name) {
  return `${file}#${name}`;
}

function resolve(specifier, fromFile, options) {
  const resolved = ts.resolveModuleName(specifier, fromFile, options, ts.sys).resolvedModule;
  if (!resolved) throw new Error(`cannot resolve ${specifier} from ${fromFile}`);
  return resolved.resolvedFileName;
}

/** The statements of `dts` declaring `names` and, transitively, the local declarations they refer to; server-only parts erased. */
function collect(dts, names, context) {
  const local = new Set(dts.statements.flatMap(declaredNames));
  const missing = names.filter((name) => !local.has(name));
  if (missing.length > 0) throw new Error(`${path.relative(context.repoRoot, dts.fileName)}: no declaration of ${missing.join(', ')}`);
  const imported = importedNames(dts);
  const wanted = [...names];
  const taken = new Set();
  const statements = [];
  while (wanted.length > 0) {
    const name = wanted.pop();
    if (taken.has(name)) continue;
    taken.add(name);
    if (imported.has(name)) checkImported(imported.get(name), dts.fileName, context);
    for (const statement of dts.statements.filter((s) => declaredNames(s).includes(name))) {
      statements.push(erase(statement, dts, context));
      // Follow what the declaration mentions when this module declares or imports it (the rest is global: Record, Promise…).
      wanted.push(...[...referencedNames(statement)].filter((ref) => local.has(ref) || imported.has(ref)));
    }
  }
  // In the order of the source module.
  return statements.sort((a, b) => a.pos - b.pos);
}

/** Names an `import { … } from '…'` statement of `dts` brings in, with where from. */
function importedNames(dts) {
  const names = new Map();
  for (const statement of dts.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      names.set(element.name.text, { specifier: statement.moduleSpecifier.text, name: (element.propertyName ?? element.name).text });
    }
  }
  return names;
}

/** A name a server declaration imports: fine when it is shared too (then it is declared beside it); refused otherwise. */
function checkImported({ specifier, name }, fromFile, context) {
  if (!isRelative(specifier)) {
    throw new Error(`${path.relative(context.repoRoot, fromFile)}: a declaration the client needs imports ${name} from ${specifier}; only inline import("…") types are carried over`);
  }
  if (!isShared(resolve(specifier, fromFile, context.options), name, context)) throw notShared(name, specifier, fromFile, context);
}

/**
 * Whether `name` of `file` is a type the door shares: declared there, or the door itself (the
 * compiler may name a shared type through the door that re-exports it).
 */
function isShared(file, name, context) {
  return context.shared.has(key(file, name)) || (path.resolve(file) === path.resolve(context.door) && [...context.shared.values()].some((type) => type.name === name));
}

/**
 * Replaces, inside `statement`: `ctx` and `meta` in tRPC's type arguments by `object`;
 * `import("<server module>").X` by `X` for the types the door shares; and refuses every other
 * server type and every package the client does not depend on.
 */
function erase(statement, dts, context) {
  const { factory } = ts;
  return replaceWithin(statement, ts.isImportTypeNode, (node, visit) => {
    if (!ts.isLiteralTypeNode(node.argument) || !ts.isStringLiteral(node.argument.literal)) return undefined;
    const specifier = node.argument.literal.text;
    const name = node.qualifier?.getText(dts);
    if (isRelative(specifier)) {
      if (!isShared(resolve(specifier, dts.fileName, context.options), name, context)) throw notShared(name, specifier, dts.fileName, context);
      return factory.createTypeReferenceNode(name, node.typeArguments?.map((argument) => ts.visitNode(argument, visit)));
    }
    if (!isFromPackages(specifier, context.packages)) throw notAPackage(name, specifier, dts.fileName, context);
    if (!TRPC_CARRIERS.has(name) || !node.typeArguments) return undefined;
    const typeArguments = node.typeArguments.map((argument) => ts.visitNode(ts.isTypeLiteralNode(argument) ? withoutServerMembers(argument) : argument, visit));
    return factory.updateImportTypeNode(node, node.argument, node.attributes, node.qualifier, typeArguments, node.isTypeOf);
  });
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
 * The error shape repeated by every router and procedure (84 times today) becomes one
 * `ErrorShape`, which keeps the file a half of its size and readable. Changes `entries` in place
 * and returns the declaration to add; when the shapes differ they stay inline and nothing is added.
 */
function shareErrorShape(entries) {
  const isErrorShape = (node) => ts.isPropertySignature(node) && ts.isIdentifier(node.name) && node.name.text === 'errorShape' && node.type !== undefined && ts.isTypeLiteralNode(node.type);
  const printer = ts.createPrinter();
  const shapes = [];
  const find = (node, sourceFile) => {
    if (isErrorShape(node)) shapes.push({ type: node.type, sourceFile });
    ts.forEachChild(node, (child) => find(child, sourceFile));
  };
  for (const { statement, sourceFile } of entries) find(statement, sourceFile);
  const texts = new Set(shapes.map(({ type, sourceFile }) => printer.printNode(ts.EmitHint.Unspecified, type, sourceFile)));
  if (texts.size !== 1) return [];
  const reference = (node) => ts.factory.updatePropertySignature(node, node.modifiers, node.name, node.questionToken, ts.factory.createTypeReferenceNode(ERROR_SHAPE_NAME));
  for (const entry of entries) entry.statement = replaceWithin(entry.statement, isErrorShape, reference);
  const [{ type, sourceFile }] = shapes;
  return [{ statement: ts.factory.createTypeAliasDeclaration(undefined, ERROR_SHAPE_NAME, undefined, type), sourceFile }];
}

/** `root` with every node passing `test` replaced by `replace(node, visit)`; `undefined` from it keeps the node and descends. */
function replaceWithin(root, test, replace) {
  const [result] = ts.transform(root, [
    (transformation) => {
      const visit = (node) => {
        const replaced = test(node) ? replace(node, visit) : undefined;
        return replaced ?? ts.visitEachChild(node, visit, transformation);
      };
      return (node) => ts.visitNode(node, visit);
    },
  ]).transformed;
  return result;
}

function notShared(name, specifier, fromFile, context) {
  return new Error(
    `${path.relative(context.repoRoot, fromFile)}: the client's types would refer to ${name} from ${specifier}, a server module. ` +
      'Export it through client/src/server-types.ts if clients may see it, or keep it out of procedure inputs, outputs and errors.',
  );
}

function notAPackage(name, specifier, fromFile, context) {
  return new Error(
    `${path.relative(context.repoRoot, fromFile)}: the client's types would refer to ${name} from the package ${specifier}, which @tabula/client does not depend on. ` +
      'Procedure inputs and outputs must be plain data types.',
  );
}
