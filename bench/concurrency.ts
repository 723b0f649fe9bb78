import type { Fixture } from './setup.js';
import type { LoadTarget } from './load.js';
import type { Scenario } from './scenarios.js';

/*
 * Safe concurrent edits (docs/contents.md#concurrent-edits): U1 updates rows with `If-Match`
 * against the same updates without it (target >= 0.95). A request checks a row out of a pool and
 * its answer puts it back with the version it is at now, so no two requests write one row at
 * once and every `If-Match` holds: what is measured is the cost of the check, not of refusals.
 * (autocannon clears a connection's context before each request, so rows cannot stay with a
 * connection; a request's own context lives until its answer is read.)
 */

/** Rows per side: more than the connections, since a run's last requests never hand theirs back. */
const POOL = 200;

function pooledUpdates(contents: string, ids: string[], ifMatch: boolean): Pick<LoadTarget, 'next' | 'onResponse'> {
  const free = [...ids];
  const versions = new Map<string, number>();
  return {
    next: (context) => {
      const id = free.shift();
      if (!id) throw new Error('U1: every row is checked out; raise POOL');
      context.id = id;
      const version = versions.get(id);
      const headers = ifMatch && version !== undefined ? { 'if-match': `"${id}:${version}"` } : undefined;
      return { path: `${contents}/${id}`, body: JSON.stringify({ data: { qty: Math.floor(Math.random() * 100) } }), headers };
    },
    onResponse: (status, body, context) => {
      const id = context.id as string;
      if (status === 200) versions.set(id, (JSON.parse(body) as { version: number }).version);
      free.push(id);
    },
  };
}

export function concurrencyScenarios(env: { api: string; fixture: Fixture }): Scenario[] {
  const { api, fixture } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const target = (ids: string[], ifMatch: boolean): LoadTarget => ({
    url: api + contents,
    method: 'PUT',
    headers: { authorization: `Bearer ${fixture.writeKey}` },
    ...pooledUpdates(contents, ids, ifMatch),
  });
  return [
    {
      name: 'U1-ifmatch',
      description: 'update a row with If-Match at its current version; "bare" is the same update of other rows without it',
      ours: target(fixture.ids.slice(0, POOL), true),
      bare: target(fixture.ids.slice(POOL, 2 * POOL), false),
      target: '>= 0.95 x without If-Match',
    },
  ];
}
