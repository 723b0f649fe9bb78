import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, unitGraph, unitOf } from './imports.js';

/**
 * The layering rule of docs/architecture.md, checked on the import graph of src/ and workers/:
 * modules and trpc do not import http, workers hold no SQL, and neither files nor folders import
 * each other in a cycle.
 */
const root = path.resolve(import.meta.dirname, '../..');
const graph = importGraph(root, ['src', 'workers']);

describe('layers', () => {
  it('reads the whole source tree', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get(path.normalize('src/server.ts'))).toContain(path.normalize('src/http/app.ts'));
  });

  it('modules and trpc import nothing from http', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = unitOf(file);
      if (!from.startsWith('src/modules/') && from !== 'src/trpc') continue;
      for (const target of targets) if (unitOf(target) === 'src/http') upward.push(`${file} -> ${target}`);
    }
    expect(upward).toEqual([]);
  });

  it('workers hold no SQL: they call module functions', () => {
    const sql = /\b(select\s.+\sfrom|insert\s+into|update\s+\w+\s+set|delete\s+from)\b/is;
    const withSql = [...graph.keys()]
      .filter((file) => file.startsWith('workers'))
      .filter((file) => sql.test(readFileSync(path.join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(withSql).toEqual([]);
  });

  it('no files import each other in a cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('no folders import each other in a cycle', () => {
    expect(cycles(unitGraph(graph))).toEqual([]);
  });

  it('a module reaches the trpc layer only through its router', () => {
    const fromModules = [...graph]
      .filter(([file]) => unitOf(file).startsWith('src/modules/'))
      .flatMap(([file, targets]) => targets.filter((target) => target.startsWith(path.normalize('src/trpc/'))).map((target) => `${file} -> ${target}`));
    expect(fromModules).toEqual([]);
  });
});
