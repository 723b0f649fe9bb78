import fc from 'fast-check';

/** fast-check generators of hostile values, shared by the property tests. */

/** How many cases a property runs: small in `npm test`, STRESS_RUNS in `npm run test:stress`. */
export const runs = (normal: number) => Number(process.env.STRESS_RUNS) || normal;

/** Fixed seed unless FC_SEED is set, so that a failure in CI reproduces locally. */
export const seed = () => Number(process.env.FC_SEED) || 20261122;

export const SQL_LOOKING = [
  "'; drop table contents; --",
  "' or '1'='1",
  '1; select pg_sleep(10)',
  "$$; delete from api_key; $$",
  '") or 1=1 --',
  "\\'; truncate workspace cascade; --",
  'E\'\\x00\'',
  '%_%\\',
  '?',
  '$1',
  ':name',
  'null',
  'undefined',
  '{{7*7}}',
  '${process.exit(1)}',
  '<script>alert(1)</script>',
];

export const UNICODE_EDGES = [
  'שלום עולם', // RTL
  '\u202Eevil\u202C', // right-to-left override
  'مرحبا‎ ‏', // RTL with marks
  '👩‍👩‍👧‍👦🏳️‍🌈', // ZWJ sequences
  'e\u0301\u0301\u0301', // stacked combining marks
  '\u200B\uFEFF\u2060', // zero-width characters
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛', // astral plane
  'İıßẞ ǅ', // case-mapping oddities
  '\t\r\n\u0085\u2028\u2029', // line separators
  '\uFFFD\uFFFF',
];

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];

/**
 * Strings a client should be able to store and read back exactly (well-formed, no NUL), up to
 * `longest` characters (the default suits bodies; a query string has a 16 KiB budget).
 */
export const storableString = (maxLength = 200, longest = 20_000): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }).filter((s) => s.isWellFormed() && !s.includes('\u0000')),
    fc.constantFrom(...SQL_LOOKING, ...UNICODE_EDGES, ...PROTOTYPE_KEYS),
    fc.integer({ min: 1, max: longest }).map((n) => 'ä'.repeat(n)),
  );

/** Strings PostgreSQL cannot store: a NUL or an unpaired surrogate somewhere. */
export const unstorableString: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 20 }), fc.constantFrom('\u0000', '\ud800', '\udfff', '\udc00x', 'a\ud83d'), fc.string({ maxLength: 20 }))
  .map(([a, bad, b]) => a + bad + b);

/** Any string at all, hostile ones well represented; short enough for a query string. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: storableString(60, 1_500) },
  { weight: 1, arbitrary: unstorableString },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 50 }) },
);

/**
 * A query-string value: short text of every kind, with NUL (which a URL can carry as %00, unlike
 * an unpaired surrogate) and SQL-looking text well represented.
 */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: storableString(40, 300) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}\u0000${b}`) },
  { weight: 1, arbitrary: fc.constantFrom(...SQL_LOOKING) },
  { weight: 1, arbitrary: fc.oneof(fc.integer().map(String), fc.constantFrom('true', 'false', '', ' ', 'null', '[]', '{}', '-1', '1e309')) },
);

/** JSON values, including prototype keys, large numbers, unicode and moderate depth. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.constantFrom(...PROTOTYPE_KEYS, 'a', 'b'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  storableString(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Nesting far beyond any limit, as raw JSON text. */
export const deepJsonText = fc
  .tuple(fc.integer({ min: 65, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => open.repeat(depth) + (open === '[' ? '' : '1') + (open === '[' ? ']' : '}').repeat(depth));

/** A value of every JSON type, to put where another type is expected. */
export const valueOfType = {
  string: fc.oneof(fc.constant(''), fc.constant('5'), fc.constant('true'), fc.constant('null'), storableString(20)),
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(0)),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  object: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
};
export type JsonType = keyof typeof valueOfType;
export const JSON_TYPES = Object.keys(valueOfType) as JsonType[];

/** A value of any JSON type but those in `accepted`. */
export const wrongTypeFor = (accepted: JsonType[]) => fc.oneof(...JSON_TYPES.filter((type) => !accepted.includes(type)).map((type) => valueOfType[type]));
