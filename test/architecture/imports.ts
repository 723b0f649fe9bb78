import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The relative imports of the sources (the server's, the console's), as a graph of files (paths relative to the repository). */

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, rel);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The file an import names: `./x.js` is x.ts, or x.tsx where the console's components are. */
function resolved(root: string, from: string, specifier: string): string {
  const target = path.normalize(path.join(path.dirname(from), specifier.replace(/\.js$/, '.ts')));
  return target.endsWith('.ts') && !existsSync(path.join(root, target)) && existsSync(path.join(root, `${target}x`)) ? `${target}x` : target;
}

/** file → the files it imports (type-only imports included: they are arrows between layers too). */
export function importGraph(root: string, dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((dir) => sourceFiles(root, dir))) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => resolved(root, file, m[1] ?? m[2]));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The unit a file belongs to for layering: its folder (`src/http`, `src/modules/<name>`, …), but a
 * module's `<domain>.router.ts`, its tRPC procedures, belongs to the trpc layer that composes
 * them into the app router.
 */
export function unitOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[1] !== 'modules') return parts.slice(0, 2).join('/');
  return file.endsWith('.router.ts') ? 'src/trpc' : parts.slice(0, 3).join('/');
}

/** Strongly connected components with more than one member (Tarjan): the import cycles. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return found.map((c) => c).sort((a, b) => a[0].localeCompare(b[0]));
}

/** The graph between units (folders), without a unit's arrows to itself. */
export function unitGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const units = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = unitOf(file);
    const set = units.get(from) ?? new Set<string>();
    for (const target of targets) if (unitOf(target) !== from) set.add(unitOf(target));
    units.set(from, set);
  }
  return new Map([...units].map(([unit, targets]) => [unit, [...targets]]));
}
