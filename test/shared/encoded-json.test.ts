import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodedArray, jsonStringParts, toJsonBody, withEncodedField, withEncoding } from '../../src/shared/encoded-json.js';

const text = (body: string | Buffer[]) => (typeof body === 'string' ? body : Buffer.concat(body).toString('utf8'));

describe('answers with a pre-encoded field', () => {
  it('are byte for byte what JSON.stringify writes, whatever the other fields and their order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 20 }),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.jsonValue(), fc.constant(undefined)), { maxKeys: 5 }),
        fc.nat(),
        (items, others, at) => {
          const entries = Object.entries(others).filter(([key]) => key !== 'list');
          entries.splice(at % (entries.length + 1), 0, ['list', items]);
          const value = Object.fromEntries(entries) as { list: unknown[] };
          const expected = JSON.stringify(value);
          const body = toJsonBody(withEncodedField(value, 'list', () => encodedArray(items)));
          expect(Array.isArray(body)).toBe(true);
          expect(text(body)).toBe(expected);
        },
      ),
    );
  });

  it('are encoded anew when the field no longer holds the encoded value; the field is invisible to JSON.stringify', () => {
    const items = [{ id: 'a', data: { title: 'é' } }];
    const value = withEncodedField({ list: items, pagination: { page: 1 } }, 'list', () => encodedArray(items));
    expect(JSON.stringify(value)).toBe('{"list":[{"id":"a","data":{"title":"é"}}],"pagination":{"page":1}}');
    expect(Object.keys(value)).toEqual(['list', 'pagination']);
    value.list = [{ id: 'b', data: { title: 'x' } }];
    expect(toJsonBody(value)).toBe('{"list":[{"id":"b","data":{"title":"x"}}],"pagination":{"page":1}}');
  });

  it('encode an array once', () => {
    const items = [1, 2, 3];
    expect(encodedArray(items)).toBe(encodedArray(items));
    expect(encodedArray(items).toString()).toBe('[1,2,3]');
    expect(toJsonBody(undefined)).toBe('');
  });
});

describe('answers encoded whole, and encoded answers as JSON strings', () => {
  it('a value encoded whole is answered as its bytes', () => {
    const bytes = [Buffer.from('{"tools":[]}')];
    const value = withEncoding({ tools: [] }, () => bytes);
    expect(toJsonBody(value)).toBe(bytes);
    expect(Object.keys(value)).toEqual(['tools']);
  });

  it('escape the parts of an encoded answer into what JSON.stringify writes for its text, byte for byte', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 20 }), fc.jsonValue(), (items, other) => {
        const value = withEncodedField({ list: items, other }, 'list', () => encodedArray(items));
        const parts = toJsonBody(value) as Buffer[];
        const escaped = Buffer.concat(jsonStringParts(parts)).toString('utf8');
        expect(`"${escaped}"`).toBe(JSON.stringify(JSON.stringify(value)));
      }),
    );
  });

  it('escape a part once', () => {
    const part = Buffer.from('{"a":"\\"}');
    expect(jsonStringParts([part])[0]).toBe(jsonStringParts([part])[0]);
  });
});
