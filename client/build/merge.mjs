/**
 * Merges declaration modules into one file: imports of the package's dependencies merged,
 * imports between the modules dropped (their declarations sit in the same file, under the same
 * names), `export` on exactly what the entry module exports, and declarations nothing exported
 * refers to (helpers such as toTabulaError) left out. Forms it cannot merge faithfully (renamed
 * imports or exports, `export *`, default imports, one name declared by two modules) stop the
 * build.
 */
import ts from 'typescript';
import { declaredNames, isFromPackages, isRelative, referencedNames } from './syntax.mjs';

/**
 * @param {{ name: string, entry?: boolean, statements: { statement: ts.Statement, sourceFile: ts.SourceFile }[] }[]} modules
 * @param {string[]} packages packages the merged file may import
 * @returns {string}
 */
export function mergeModules(modules, packages) {
  const entry = modules.find((module) => module.entry);
  const exported = exportedNames(entry);
  const imports = new Map();
  const declaredIn = new Map();
  const declarations = [];
  for (const module of modules) {
    for (const { statement, sourceFile } of module.statements) {
      if (ts.isImportDeclaration(statement)) {
        addImport(imports, statement, module.name, packages);
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

  const needed = neededNames(declarations, exported, declaredIn);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const body = declarations
    .filter(({ names }) => names.some((name) => needed.has(name)))
    .map(({ names, statement, sourceFile }) => printer.printNode(ts.EmitHint.Unspecified, withExport(statement, names.some((name) => exported.has(name))), sourceFile));
  return `${importLines(imports).join('\n')}\n\n${body.join('\n\n')}\n`;
}

/** The exported names and every declared name they refer to, transitively. */
function neededNames(declarations, exported, declaredIn) {
  const needed = new Set(exported);
  for (let grew = true; grew; ) {
    grew = false;
    for (const { names, statement } of declarations) {
      if (!names.some((name) => needed.has(name))) continue;
      for (const name of referencedNames(statement)) {
        if (!declaredIn.has(name) || needed.has(name)) continue;
        needed.add(name);
        grew = true;
      }
    }
  }
  return needed;
}

/** Records the named imports of a package; a name imported as a value anywhere stays a value import. */
function addImport(imports, statement, moduleName, packages) {
  const specifier = statement.moduleSpecifier.text;
  const clause = statement.importClause;
  const bindings = clause?.namedBindings;
  const elements = bindings && ts.isNamedImports(bindings) ? bindings.elements : [];
  const renamed = elements.find((element) => element.propertyName);
  if (renamed) throw new Error(`${moduleName}: import ${renamed.propertyName.text} from ${specifier} under its own name (no \`as\`)`);
  if (isRelative(specifier)) {
    // The merged modules are the files of one directory: anything else relative is the server.
    if (/^\.\/[^/]+$/.test(specifier)) return;
    throw new Error(`${moduleName} imports ${specifier}; the client reaches the server's types only through ./server-types.js`);
  }
  if (!isFromPackages(specifier, packages)) throw new Error(`${moduleName} imports ${specifier}, which is not a dependency of the client package`);
  if (!clause || clause.name || !bindings || !ts.isNamedImports(bindings)) throw new Error(`${moduleName}: only named imports from ${specifier} can be merged`);
  const names = imports.get(specifier) ?? new Map();
  for (const element of elements) {
    const typeOnly = clause.isTypeOnly || element.isTypeOnly;
    names.set(element.name.text, (names.get(element.name.text) ?? true) && typeOnly);
  }
  imports.set(specifier, names);
}

function importLines(imports) {
  return [...imports].map(([specifier, names]) => {
    const all = [...names];
    if (all.every(([, typeOnly]) => typeOnly)) return `import type { ${all.map(([name]) => name).join(', ')} } from '${specifier}';`;
    return `import { ${all.map(([name, typeOnly]) => (typeOnly ? `type ${name}` : name)).join(', ')} } from '${specifier}';`;
  });
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

/** `export` when `exported`; `declare` where a declaration file asks for it (classes, functions, variables). */
function withExport(statement, exported) {
  const { factory } = ts;
  const rest = (ts.getModifiers(statement) ?? []).filter((m) => m.kind !== ts.SyntaxKind.ExportKeyword);
  const needsDeclare = !ts.isTypeAliasDeclaration(statement) && !ts.isInterfaceDeclaration(statement) && !rest.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
  const modifiers = [...(exported ? [factory.createModifier(ts.SyntaxKind.ExportKeyword)] : []), ...(needsDeclare ? [factory.createModifier(ts.SyntaxKind.DeclareKeyword)] : []), ...rest];
  return factory.replaceModifiers(statement, modifiers);
}
