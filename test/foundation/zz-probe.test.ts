import { it } from 'vitest';
import { startTestApi } from '../helpers/api.js';
it('probe', async () => {
  const t = await startTestApi();
  const show = async (label: string, p: Promise<{status:number;text:string}>) => { const r = await p; console.log(label, r.status, r.text); };
  await show('nobody-notoken', t.call('POST', '/v1/workspaces', { token: null }));
  await show('nobody-token', t.call('POST', '/v1/workspaces'));
  await show('nobody-token-ct', t.call('POST', '/v1/workspaces', { headers: { 'content-type': 'application/json' } }));
  await show('put-nobody', t.call('PUT', '/v1/accounts/me'));
  await show('put-nobody-missing-ws', t.call('PUT', '/v1/workspaces/00000000-0000-7000-8000-000000000000'));
  await t.close();
});
