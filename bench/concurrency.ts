import type { Fixture } from './setup.js';
import type { LoadTarget } from './load.js';
import type { Scenario } from './scenarios.js';

/*
 * Safe concurrent edits (docs/contents.md#concurrent-edits): U1 updates rows with `If-Match`
 * against the same updates without it (target >= 0.95). Each connection keeps to its own row and
 * learns the row's next version from each answer, so every `If-Match` holds: what is measured is
 * the cost of the check, not of refusals.
 */
export function concurrencyScenarios(env: { api: string; fixture: Fixture; connections: number }): Scenario[] {
  const { api, fixture } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const auth = { authorization: `Bearer ${fixture.writeKey}` };
  // Two disjoint sets of rows, one per side, a row per connection (the fixture's ids are random rows).
  const own = (from: number): LoadTarget['next'] => {
    let taken = 0;
    return (context) => {
      context.id ??= fixture.ids[from + (taken++ % env.connections)];
      return { path: `${contents}/${context.id}`, body: JSON.stringify({ data: { qty: Math.floor(Math.random() * 100) } }) };
    };
  };
  const versions = new Map<string, number>();
  const withIfMatch = own(0)!;
  const target = (next: NonNullable<LoadTarget['next']>, extra: Partial<LoadTarget> = {}): LoadTarget => ({ url: api + contents, method: 'PUT', headers: auth, next, ...extra });
  return [
    {
      name: 'U1-ifmatch',
      description: 'update a row with If-Match (each connection its own row, at its current version); "bare" is the same update without it',
      ours: target(
        (context) => {
          const request = withIfMatch(context);
          const id = context.id as string;
          return versions.has(id) ? { ...request, headers: { 'if-match': `"${id}:${versions.get(id)}"` } } : request;
        },
        {
          onResponse: (status, body, context) => {
            if (status === 200) versions.set(context.id as string, (JSON.parse(body) as { version: number }).version);
          },
        },
      ),
      bare: target(own(env.connections)!),
      target: '>= 0.95 x without If-Match',
    },
  ];
}
