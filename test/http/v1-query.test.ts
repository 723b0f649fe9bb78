import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/errors/app-error.js';
import { paramKind, queryShapeOf, readQuery } from '../../src/http/v1-query.js';
import { pageParams } from '../../src/shared/pagination.js';

/** How `/v1` reads a query string into a procedure's input (src/http/v1-query.ts), without a server. */

const shape = queryShapeOf(
  {
    projectId: z.string(),
    ...pageParams,
    ratio: z.number().optional(),
    flag: z.boolean().optional(),
    tags: z.array(z.string()).optional(),
    q: z.string().optional(),
    kind: z.enum(['a', 'b']).optional(),
  },
  ['projectId'],
);

const read = (query: Record<string, unknown>) => readQuery(query, shape);
const input = (query: Record<string, unknown>) => {
  const result = read(query);
  if ('error' in result) throw new Error(`refused: ${result.error.message}`);
  return { ...result.input };
};
const refusal = (query: Record<string, unknown>) => {
  const result = read(query);
  if (!('error' in result)) throw new Error(`accepted: ${JSON.stringify(result.input)}`);
  expect(result.error).toBeInstanceOf(AppError);
  expect([result.error.status, result.error.errorCode]).toEqual([400, 'INVALID_QUERY']);
  return result.error.message;
};

describe('v1 query reading', () => {
  it('knows each declared parameter’s kind; path parameters are not query parameters', () => {
    expect(Object.fromEntries(shape)).toEqual({ page: 'integer', size: 'integer', withCount: 'text', ratio: 'number', flag: 'boolean', tags: 'array', q: 'text', kind: 'text' });
    expect(paramKind(z.int().default(3))).toBe('integer');
    expect(paramKind(z.number().int().min(1).optional())).toBe('integer');
  });

  it('converts plain decimal forms', () => {
    expect(input({ page: '2', size: '5', ratio: '-1.25', flag: 'false', tags: 'x', q: ' spaced ', kind: 'a' })).toEqual({ page: 2, size: 5, ratio: -1.25, flag: false, tags: ['x'], q: ' spaced ', kind: 'a' });
    expect(input({ tags: ['x', 'y'], page: '0' })).toEqual({ tags: ['x', 'y'], page: 0 });
  });

  it('refuses every other spelling of a number, naming the parameter', () => {
    for (const page of ['0x10', '010', '00', '1e1', '1E1', '+1', ' 1', '1 ', '1.0', '-0', '', 'NaN', 'Infinity', '１']) {
      expect(refusal({ page }), JSON.stringify(page)).toMatch(/^page: /);
    }
    for (const ratio of ['.5', '5.', '1e-3', '0x1', '-0.0', '']) expect(refusal({ ratio }), ratio).toMatch(/^ratio: /);
    for (const flag of ['TRUE', '1', 'yes', '']) expect(refusal({ flag }), flag).toMatch(/^flag: /);
  });

  it('refuses repeated, bracketed and empty parameters', () => {
    expect(refusal({ page: ['1', '2'] })).toBe('page: given 2 times; give it once');
    expect(refusal({ q: ['a', 'a'] })).toBe('q: given 2 times; give it once');
    expect(refusal({ 'page[]': '1' })).toMatch(/^page: give it as page=value/);
    expect(refusal({ 'size[a][b]': '1' })).toMatch(/^size: /);
    expect(refusal({ q: '' })).toBe('q: empty value; leave the parameter out to get its default');
    expect(refusal({ kind: '' })).toMatch(/^kind: empty value/);
    expect(refusal({ tags: ['a', ''] })).toMatch(/^tags: empty value/);
  });

  it('hands undeclared parameters on as before, and a `__proto__` parameter is just a key', () => {
    expect(input({ other: ['1'], 'x[]': '2', blank: '' })).toEqual({ other: '1', 'x[]': '2' });
    const result = read(JSON.parse('{"__proto__":["a","b"],"page":"3"}') as Record<string, unknown>);
    if ('error' in result) throw result.error;
    // An own key (then stripped by zod), not the input's prototype.
    expect(Object.keys(result.input).sort()).toEqual(['__proto__', 'page']);
    expect(result.input.page).toBe(3);
    // A path parameter in the query string is not read here; the path's value replaces it.
    expect(input({ projectId: '' })).toEqual({});
  });
});
