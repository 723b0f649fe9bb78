import { adminToken, type Fixture } from './setup.js';
import type { LoadTarget } from './load.js';
import type { Scenario } from './scenarios.js';

/*
 * Roles (docs/roles.md): the cost of a policy, each measured against what a caller without one
 * pays for the same answer, in the same run.
 * - P1: a list under a rule's `where` (category c) against the same list with that condition
 *   written as a `filter` by a read key (target >= 0.90);
 * - P2: read one under a role against the same read by a read key (target >= 0.95);
 * - P3: W1 (create with validation) under a role with a `where` against W1 with a read_write key
 *   (target >= 0.90).
 */

async function call(api: string, method: string, path: string, body: unknown): Promise<{ id: string; key?: string }> {
  const res = await fetch(api + path, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; key?: string };
}

export async function roleScenarios(env: { api: string; fixture: Fixture }): Promise<Scenario[]> {
  const { api, fixture } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const inC = [{ i: 'category', w: 'eq', v: 'c' }];
  const role = await call(api, 'POST', `/v1/${fixture.projectId}/roles`, {
    name: 'bench category c',
    rules: [{ table: 'articles', actions: ['read', 'create'], where: inC }],
  });
  const roleKey = (await call(api, 'POST', `/v1/${fixture.projectId}/api-keys`, { name: 'bench role', roleId: role.id })).key!;
  const readKey = (await call(api, 'POST', `/v1/${fixture.projectId}/api-keys`, { name: 'bench read', permission: 'read' })).key!;
  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  // Rows both callers read: category c.
  const listed = await fetch(`${api}${contents}?size=1000&withCount=false&fields=id&filter=${encodeURIComponent(JSON.stringify(inC))}`, { headers: as(readKey) });
  const ids = ((await listed.json()) as { list: { id: string }[] }).list.map((r) => r.id);
  const randomId = () => ids[Math.floor(Math.random() * ids.length)];
  const target = (key: string, path: string, extra: Partial<LoadTarget> = {}): LoadTarget => ({ url: api + path, headers: as(key), ...extra });
  const filtered = `${contents}?filter=${encodeURIComponent(JSON.stringify(inC))}`;
  // W1's body, in category c (inside the role's where) for both callers.
  let written = 0;
  const body = () => JSON.stringify({ data: { title: `bench role ${++written}`, category: 'c', price: 12.5, qty: 3 } });
  const create = (key: string) => target(key, contents, { method: 'POST', next: () => ({ path: contents, body: body() }) });
  return [
    {
      name: 'P1-role-list',
      description: "list page 1 with exact total under a role's where (category c); \"bare\" is a read key with that condition as a filter",
      ours: target(roleKey, contents),
      bare: target(readKey, filtered),
      target: '>= 0.90 x the filter',
    },
    {
      name: 'P2-role-read',
      description: 'read one by id under a role; "bare" is a read key reading the same rows',
      ours: target(roleKey, contents, { next: () => ({ path: `${contents}/${randomId()}` }) }),
      bare: target(readKey, contents, { next: () => ({ path: `${contents}/${randomId()}` }) }),
      target: '>= 0.95 x the read key',
    },
    {
      name: 'P3-role-write',
      description: 'W1 (create, category c) under a role with a where; "bare" is W1 with a read_write key',
      ours: create(roleKey),
      bare: create(fixture.writeKey),
      target: '>= 0.90 x the read_write key',
    },
  ];
}
