import ts from 'typescript';

/*
 * What a source file says in code, not in comments: its string and template literals, and the
 * names of the methods it calls. Parsed with the TypeScript compiler, so comments, regular
 * expressions and type positions are told apart from code.
 */

function walk(text: string, visit: (node: ts.Node) => void): void {
  const file = ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const go = (node: ts.Node): void => {
    visit(node);
    ts.forEachChild(node, go);
  };
  go(file);
}

/** Every string and template literal; a template's substitutions read `${}`. */
export function stringLiterals(text: string): string[] {
  const literals: string[] = [];
  walk(text, (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literals.push(node.text);
    else if (ts.isTemplateExpression(node)) literals.push(node.head.text + node.templateSpans.map((span) => '${}' + span.literal.text).join(''));
  });
  return literals;
}

/** The names of the methods called (`x.name(...)`), in order, repeats included. */
export function calledMethods(text: string): string[] {
  const names: string[] = [];
  walk(text, (node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) names.push(node.expression.name.text);
  });
  return names;
}
