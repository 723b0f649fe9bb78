import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, columnsPath, contentsPath, createRow, createTable, expectError, GHOST, type World } from './fixture.js';

/** docs/reliability.md#errors: 401 → 403 → 404 → 400/413/415: an unknown item wins over a bad body, whatever is wrong with it. */
let t: TestApi;
let w: World;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => {
  await t?.close();
});

const malformed = { raw: '{not json', headers: { 'content-type': 'application/json' } };

describe('404 before the body on item paths', () => {
  it('PUT/DELETE of an unknown contents id: 404 with a schema-invalid or unparsable body', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    await createRow(w, table.id, { title: 'x' });
    const path = contentsPath(w, table.id, GHOST);
    expectError(await t.call('PUT', path, { token: w.writeKey, body: { status: 'LIVE' } }), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', path, { token: w.writeKey, body: { data: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', path, { token: w.writeKey, ...malformed }), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', contentsPath(w, table.id, 'no-such-slug'), { token: w.writeKey, ...malformed }), 404, 'NOT_FOUND');
    // a read key is refused before anything is looked up
    expectError(await t.call('PUT', path, { token: w.readKey, ...malformed }), 403, 'FORBIDDEN');
  });

  it('PUT of an unknown column: 404 with an unparsable body; a known one: 400 INVALID_JSON', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    expectError(await t.call('PUT', columnsPath(w, table.id, GHOST), malformed), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', columnsPath(w, table.id, table.columns.title.id), malformed), 400, 'INVALID_JSON');
  });

  it('an existing row with an unparsable body is 400 INVALID_JSON', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const row = await createRow(w, table.id, { title: 'x' });
    expectError(await t.call('PUT', contentsPath(w, table.id, row.id), { token: w.writeKey, ...malformed }), 400, 'INVALID_JSON');
  });
});
