import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph } from './imports.js';
import { keyRoots, queryKeyLiterals } from './query-keys.js';

/**
 * The console's import graph (admin/src) has no cycle, and its query keys are written only in the
 * key factories, admin/src/data/<domain>/keys.ts (docs/console.md, "Data and query keys"): the
 * event feed (admin/src/data/realtime.ts) refreshes queries by the factories' keys, so a key
 * written by hand elsewhere could drift from the ones it refreshes.
 */
const root = path.resolve(import.meta.dirname, '../..');
const graph = importGraph(root, ['admin/src']);
const posix = (file: string) => file.split(path.sep).join('/');
const source = (file: string) => readFileSync(path.join(root, file), 'utf8');
const isFactory = (file: string) => /^admin\/src\/data\/[\w-]+\/keys\.ts$/.test(posix(file));

describe('console imports', () => {
  it('reads the whole console, components (.tsx) and their imports included', () => {
    expect(graph.size).toBeGreaterThan(60);
    expect(graph.get(path.normalize('admin/src/app.tsx'))).toContain(path.normalize('admin/src/layout/Shell.tsx'));
  });

  it('no files import each other in a cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  const factories = [...graph.keys()].filter(isFactory);
  const roots = new Set(factories.flatMap((file) => keyRoots(source(file))));

  it('has a key factory per domain, whose keys start from the account, a workspace or a project', () => {
    expect(factories.length).toBeGreaterThan(5);
    expect([...roots].sort()).toEqual(['me', 'project', 'workspace', 'workspaces']);
  });

  it('query keys are written in the key factories (admin/src/data/<domain>/keys.ts) only', () => {
    const outside = [...graph.keys()]
      .filter((file) => !isFactory(file))
      .flatMap((file) => queryKeyLiterals(source(file), file.endsWith('.tsx'), roots).map((literal) => `${posix(file)}: ${literal}`));
    expect(outside).toEqual([]);
  });

  it('the check above sees keys where they are written, not other arrays', () => {
    const sample = [
      "const a = useQuery({ queryKey: ['files', id, page], queryFn });",
      "const b = useApi(['me'], (client) => client.accounts.me.query({}));",
      "const c = useApiMutation(write, [['project', pid, 'tables'], tableKeys.all(pid)]);",
      "queries.setQueryData(['x', id], record);",
      "const d = ['project', pid, 'keys'];",
      // Not keys: keys from a factory, a list of them, and arrays that start otherwise.
      "useApi(tableKeys.list(pid), read); useApiMutation(write, [tableKeys.all(pid)]); const e = ['a', 'b'].map(f);",
      'const f = <Item ids={[id]} />;',
    ].join('\n');
    expect(queryKeyLiterals(sample, true, new Set(['project']))).toEqual([
      "['files', id, page]",
      "['me']",
      "['project', pid, 'tables']",
      "['x', id]",
      "['project', pid, 'keys']",
    ]);
  });
});
