import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, unitGraph, unitOf } from './imports.js';
import { calledMethods, stringLiterals } from './literals.js';

/**
 * The layering rule of docs/architecture.md, checked on the import graph of src/, workers/ and
 * the typed client (client/src/): modules and trpc do not import http, workers hold no SQL, SQL is
 * written only in its homes and run only by src/db/sql.ts (the data-access rule), and neither
 * files nor folders import each other in a cycle.
 */
const root = path.resolve(import.meta.dirname, '../..');
const graph = importGraph(root, ['src', 'workers', 'client/src']);

/**
 * Where raw SQL may be written and run (docs/architecture.md, "Data access"): the runners in
 * src/db/, the migrations, each domain's pure `<domain>.sql.ts`, and the pure builders of the
 * query engine and of column indexes.
 */
const SQL_HOMES = [/^src\/db\//, /^src\/migrations\//, /\.sql\.ts$/, /^src\/modules\/query\//, /^src\/modules\/columns\/column\.ddl\.ts$/];
const isSqlHome = (file: string) => SQL_HOMES.some((home) => home.test(file.split(path.sep).join('/')));

/** A string or template literal that starts a SQL statement. */
const SQL_STATEMENT =
  /^\s*(select\s+\S|insert\s+into\s|update\s+\w+(\s+as\s+\w+)?\s+set\s|delete\s+from\s|with\s+\w+\s+as\s*\(|lock\s+table\s|(release\s+|rollback\s+to\s+)?savepoint\s|set\s+transaction\s)/i;

const source = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Every module specifier a file imports or re-exports, relative or bare (`pg`, `node:http`). */
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;
const specifiersOf = (file: string) => [...source(file).matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3]);

/** The packages of the web layer. */
const HTTP_PACKAGES = new Set(['node:http', 'node:https', 'http', 'https', 'express', 'busboy']);

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

  it('SQL literals live in *.sql.ts files, src/db/, src/migrations/ and the pure query builders only', () => {
    const outside = [...graph.keys()]
      .filter((file) => !isSqlHome(file))
      .filter((file) => stringLiterals(source(file)).some((literal) => SQL_STATEMENT.test(literal)));
    expect(outside).toEqual([]);
  });

  it('the check above sees SQL in string and template literals, not in comments or column types', () => {
    const sample = "// select id from contents\nconst a = 'select';\nconst b = `\n  update contents set data = ${x}`;\nconst c = 'with rows as (select 1)';";
    expect(stringLiterals(sample).filter((literal) => SQL_STATEMENT.test(literal))).toEqual(['\n  update contents set data = ${}', 'with rows as (select 1)']);
  });

  it('only src/db/ and src/migrations/ call execute (entity manager, connection, Kysely) themselves', () => {
    const runners = [...graph.keys()]
      .filter((file) => !/^src[\\/](db|migrations)[\\/]/.test(file))
      .filter((file) => calledMethods(source(file)).some((name) => name === 'execute' || name === 'executeQuery'));
    expect(runners).toEqual([]);
  });

  it('migrations import only @mikro-orm/*, node:* and src/migrations/: live module code would change what an old migration does', () => {
    const migrationsDir = path.normalize('src/migrations/');
    const outside = [...graph.keys()]
      .filter((file) => file.startsWith(migrationsDir))
      .flatMap((file) =>
        specifiersOf(file)
          .filter((name) => !/^(@mikro-orm\/|node:)/.test(name))
          .filter((name) => !(name.startsWith('.') && path.normalize(path.join(path.dirname(file), name)).startsWith(migrationsDir)))
          .map((name) => `${file} -> ${name}`),
      );
    expect(outside).toEqual([]);
  });

  it('modules speak no HTTP: node:http, express and busboy belong to src/http', () => {
    const http = [...graph.keys()]
      .filter((file) => unitOf(file).startsWith('src/modules/'))
      .flatMap((file) => specifiersOf(file).filter((name) => HTTP_PACKAGES.has(name)).map((name) => `${file} -> ${name}`));
    expect(http).toEqual([]);
  });

  it('modules reach src/auth only through their routers (access is decided before a module runs)', () => {
    const fromModules = [...graph]
      .filter(([file]) => unitOf(file).startsWith('src/modules/'))
      .flatMap(([file, targets]) => targets.filter((target) => target.startsWith(path.normalize('src/auth/'))).map((target) => `${file} -> ${target}`));
    expect(fromModules).toEqual([]);
  });

  it('src/db knows no module: it does not import the ORM configuration (which lists the entities)', () => {
    const config = path.normalize('mikro-orm.config.ts');
    const fromDb = [...graph]
      .filter(([file]) => file.startsWith(path.normalize('src/db/')))
      .flatMap(([file, targets]) => targets.filter((target) => target === config || target.startsWith(path.normalize('src/modules/'))).map((target) => `${file} -> ${target}`));
    expect(fromDb).toEqual([]);
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
