/** Small questions about declaration syntax that the build steps share. */
import ts from 'typescript';

/** The top-level names a statement declares (none for imports, exports and anything else). */
export function declaredNames(statement) {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.filter((d) => ts.isIdentifier(d.name)).map((d) => d.name.text);
  const named =
    ts.isTypeAliasDeclaration(statement) ||
    ts.isInterfaceDeclaration(statement) ||
    ts.isClassDeclaration(statement) ||
    ts.isFunctionDeclaration(statement) ||
    ts.isEnumDeclaration(statement);
  return named && statement.name ? [statement.name.text] : [];
}

/** Names a declaration refers to in type positions (`Foo<…>`, `typeof foo`, `extends Foo`), by their leftmost identifier. */
export function referencedNames(node) {
  const names = new Set();
  const leftmost = (name) =>
    ts.isIdentifier(name) ? name.text : ts.isQualifiedName(name) ? leftmost(name.left) : ts.isPropertyAccessExpression(name) ? leftmost(name.expression) : undefined;
  const visit = (child) => {
    const name = ts.isTypeReferenceNode(child)
      ? leftmost(child.typeName)
      : ts.isTypeQueryNode(child)
        ? leftmost(child.exprName)
        : ts.isExpressionWithTypeArguments(child)
          ? leftmost(child.expression)
          : undefined;
    if (name) names.add(name);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return names;
}

export function isRelative(specifier) {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

/** `@trpc/server/observable` belongs to `@trpc/server`. */
export function isFromPackages(specifier, packages) {
  return packages.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}

export function failOnDiagnostics(diagnostics, what) {
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length === 0) return;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => '\n' };
  throw new Error(`${what}:\n${ts.formatDiagnostics(errors, host)}`);
}
