import ts from 'typescript';

/*
 * The console's TanStack Query keys written as array literals, found with the TypeScript parser.
 * The keys of the console are built by one factory per domain (docs/console.md, "Data and query
 * keys"); a literal anywhere else is a key that can drift from the ones the event feed refreshes.
 */

/** Calls that take a query key as an argument, and calls that take a list of keys (the ones a write refreshes). */
const KEY_TAKERS = new Set(['useApi', 'setQueryData', 'getQueryData', 'getQueryState']);
const KEY_LIST_TAKERS = new Set(['useApiMutation']);

function parse(text: string, tsx: boolean): ts.SourceFile {
  return ts.createSourceFile(tsx ? 'source.tsx' : 'source.ts', text, ts.ScriptTarget.Latest, true, tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

function each(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => each(child, visit));
}

const calleeName = (call: ts.CallExpression): string | undefined =>
  ts.isIdentifier(call.expression) ? call.expression.text : ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : undefined;

const isArgumentOf = (node: ts.Node, callees: ReadonlySet<string>): boolean =>
  ts.isCallExpression(node.parent) && node.parent.arguments.some((argument) => argument === node) && callees.has(calleeName(node.parent) ?? '');

/** Whether an array literal is a key given to a key-taking call, or one of a list of keys given to a call. */
const isKeyArgument = (node: ts.ArrayLiteralExpression): boolean =>
  isArgumentOf(node, KEY_TAKERS) || (ts.isArrayLiteralExpression(node.parent) && isArgumentOf(node.parent, KEY_LIST_TAKERS));

/** The first elements (string literals) of a factory file's array literals: the roots keys start with. */
export function keyRoots(text: string): string[] {
  const roots: string[] = [];
  each(parse(text, false), (node) => {
    if (ts.isArrayLiteralExpression(node) && node.elements[0] && ts.isStringLiteral(node.elements[0])) roots.push(node.elements[0].text);
  });
  return roots;
}

/**
 * The array literals of a source that are query keys: a `queryKey` property's value, a key given
 * to a key-taking call (useApi, useApiMutation's invalidations, setQueryData, …), or any array
 * that starts with one of the factories' roots (a key kept in a variable first).
 */
export function queryKeyLiterals(text: string, tsx: boolean, roots: ReadonlySet<string>): string[] {
  const file = parse(text, tsx);
  const found: string[] = [];
  each(file, (node) => {
    if (!ts.isArrayLiteralExpression(node)) return;
    const first = node.elements[0];
    const isKey =
      (ts.isPropertyAssignment(node.parent) && node.parent.initializer === node && node.parent.name.getText(file) === 'queryKey') ||
      isKeyArgument(node) ||
      (first !== undefined && ts.isStringLiteral(first) && roots.has(first.text));
    if (isKey) found.push(node.getText(file));
  });
  return found;
}
