import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { UUID_SHAPE, createWorkspace, expectError, invite, uniqueEmail, type Person } from './helpers.js';

let t: TestApi;
let workspaceId: string;
let alice: Person;
let bob: Person;

beforeAll(async () => {
  t = await startTestApi();
  workspaceId = await createWorkspace(t, 'Accounts');
  alice = await invite(t, workspaceId, 'MEMBER');
  bob = await invite(t, workspaceId, 'MEMBER');
});
afterAll(() => t?.close());

describe('GET /v1/accounts/me', () => {
  it('returns the admin account created at start-up', async () => {
    const res = await t.call('GET', '/v1/accounts/me');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['createdAt', 'email', 'id', 'name']);
    expect(res.json).toMatchObject({ email: t.adminEmail, name: 'Admin' });
    expect(res.json.id).toMatch(UUID_SHAPE);
    expect(new Date(res.json.createdAt).toISOString()).toBe(res.json.createdAt);
  });

  it('returns the caller’s own account for an invited token', async () => {
    const res = await t.call('GET', '/v1/accounts/me', { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: alice.accountId, email: alice.email });
    expect(res.json.name).toBe(alice.email.split('@')[0]);
  });

  it('needs a token', async () => {
    expectError(await t.call('GET', '/v1/accounts/me', { token: null }), 401, 'UNAUTHORIZED');
    expectError(await t.call('PUT', '/v1/accounts/me', { token: null, body: { name: 'x' } }), 401, 'UNAUTHORIZED');
  });
});

describe('PUT /v1/accounts/me', () => {
  it('changes the name and answers the full account', async () => {
    const res = await t.call('PUT', '/v1/accounts/me', { token: alice.token, body: { name: 'Alice A.' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: alice.accountId, email: alice.email, name: 'Alice A.' });
    expect(Object.keys(res.json).sort()).toEqual(['createdAt', 'email', 'id', 'name']);
    expect((await t.call('GET', '/v1/accounts/me', { token: alice.token })).json.name).toBe('Alice A.');
  });

  it('is partial: an empty body changes nothing', async () => {
    const before = (await t.call('GET', '/v1/accounts/me', { token: alice.token })).json;
    const res = await t.call('PUT', '/v1/accounts/me', { token: alice.token, body: {} });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(before);
  });

  it('changes the e-mail (stored lower-case); the token keeps working', async () => {
    const email = uniqueEmail('alice-new');
    const res = await t.call('PUT', '/v1/accounts/me', { token: alice.token, body: { email: email.toUpperCase() } });
    expect(res.status).toBe(200);
    expect(res.json.email).toBe(email);
    const me = await t.call('GET', '/v1/accounts/me', { token: alice.token });
    expect(me.json).toMatchObject({ id: alice.accountId, email, name: 'Alice A.' });
    alice.email = email;
    // The workspace member list shows the new address.
    const members = await t.call('GET', `/v1/workspaces/${workspaceId}/members`, { token: alice.token });
    expect(members.json.list.find((m: { accountId: string }) => m.accountId === alice.accountId).email).toBe(email);
  });

  it('keeping one’s own e-mail is not a conflict', async () => {
    const res = await t.call('PUT', '/v1/accounts/me', { token: alice.token, body: { email: alice.email, name: 'Alice' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ email: alice.email, name: 'Alice' });
  });

  it('an e-mail used by another account → 409 CONFLICT naming email, whatever its case', async () => {
    for (const email of [bob.email, bob.email.toUpperCase(), t.adminEmail]) {
      const res = await t.call('PUT', '/v1/accounts/me', { token: alice.token, body: { email } });
      expect(expectError(res, 409, 'CONFLICT').message).toMatch(/email/i);
    }
    // Nothing changed, and a later valid update still works on the same account.
    expect((await t.call('GET', '/v1/accounts/me', { token: alice.token })).json.email).toBe(alice.email);
    expect((await t.call('PUT', '/v1/accounts/me', { token: alice.token, body: { name: 'Still Alice' } })).status).toBe(200);
  });

  it('rejects malformed input with 400 BAD_REQUEST naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: null }, 'name'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 12 }, 'email'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('PUT', '/v1/accounts/me', { token: bob.token, body });
      expect(expectError(res, 400, 'BAD_REQUEST').message, JSON.stringify(body)).toContain(field);
    }
  });

  it('an invite by the new e-mail finds the renamed account (no new account, no token)', async () => {
    const other = await createWorkspace(t, 'Other');
    const res = await t.call('POST', `/v1/workspaces/${other}/members`, { body: { email: alice.email, role: 'MEMBER' } });
    expect(res.status).toBe(201);
    expect(res.json.accountId).toBe(alice.accountId);
    expect(res.json).not.toHaveProperty('accessToken');
  });
});
