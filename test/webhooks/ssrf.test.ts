import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryAgent, destinationProblem } from '../../src/net/ssrf.js';
import { embeddedIpv4, isPublicAddress } from '../../src/net/ip-ranges.js';
import { sendOnce, type DeliveryTarget } from '../../src/modules/webhooks/webhook.delivery.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, expectValidation, type World } from '../contents/fixture.js';
import { startReceiver, webhooksPath, type Receiver } from './fixture.js';

/** Where a webhook may point (docs/webhooks.md): hosts resolving to non-public addresses are 422 unless WEBHOOKS_ALLOW_PRIVATE. */
let t: TestApi;
let w: World;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApi({ WEBHOOK_RETRY_DELAYS: '1,1,1' });
  w = await buildWorld(t);
  receiver = await startReceiver([200]);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe('address classification', () => {
  it('refuses loopback, private, link-local, unique-local, CGNAT, unspecified, multicast, reserved — in both families', () => {
    const blocked = [
      '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254',
      '100.64.0.1', '100.127.255.254', '0.0.0.0', '224.0.0.251', '239.255.255.250', '255.255.255.255', '240.0.0.1',
      '192.0.2.10', '198.18.0.1',
      '::', '::1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '64:ff9b::a00:1', '2002:a00:1::1',
    ];
    for (const address of blocked) expect(isPublicAddress(address), address).toBe(false);
    const allowed = ['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
    for (const address of allowed) expect(isPublicAddress(address), address).toBe(true);
    expect(isPublicAddress('not-an-ip')).toBe(false);
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('2002:c0a8:101::1')).toBe('192.168.1.1');
    expect(embeddedIpv4('2606:4700::1')).toBeNull();
  });

  it('resolves host names: localhost is refused, as is a name that does not resolve', async () => {
    expect(await destinationProblem(new URL('http://localhost:8080/x'), false)).toMatch(/localhost resolves to/);
    expect(await destinationProblem(new URL('http://no-such-host.invalid/'), false)).toMatch(/does not resolve/);
    expect(await destinationProblem(new URL('http://93.184.215.14/'), false)).toBeNull();
    expect(await destinationProblem(new URL('http://localhost/'), true)).toBeNull();
  });
});

describe('create and update', () => {
  it('422 VALIDATION_ERROR field url for every non-public destination without WEBHOOKS_ALLOW_PRIVATE', async () => {
    const urls = [
      receiver.url,
      'http://localhost:3000/hook',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://10.1.2.3/',
      'https://192.168.0.10/',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://[fd00::5]/',
      'http://[fe80::1]/',
      'http://224.0.0.1/',
      'http://2130706433/', // 127.0.0.1 as one decimal number (WHATWG URL normalises it)
      'http://no-such-host.invalid/',
    ];
    for (const url of urls) {
      const res = await t.call('POST', webhooksPath(w), { body: { url, events: ['*'] } });
      expectValidation(res, ['url']);
      // The refusal says how a local receiver can be allowed.
      expect(res.json.error.details[0].message).toContain('WEBHOOKS_ALLOW_PRIVATE=true');
    }
    const ok = await t.call('POST', webhooksPath(w), { body: { url: 'https://93.184.215.14/hook', events: ['*'] } });
    expect(ok.status, ok.text).toBe(201);
    expectValidation(await t.call('PUT', webhooksPath(w, ok.json.id), { body: { url: 'http://127.0.0.1:1/' } }), ['url']);
  });
});

describe('at delivery time', () => {
  const target = (url: string): DeliveryTarget => ({
    webhookId: '0190b0a0-0000-7000-8000-000000000001',
    projectId: w.projectId,
    url,
    active: true,
    secrets: ['whsec_' + Buffer.alloc(32, 1).toString('base64')],
    consecutiveFailures: 0,
    eventId: '0190b0a0-0000-7000-8000-000000000002',
    type: 'tables.created',
    body: '{}',
    state: 'pending',
    attempts: 0,
    nextAttempt: 1,
    subjectId: null,
    hasSuccessor: false,
  });

  it('the guarded agent refuses a host name that now resolves to a private address (DNS rebinding), and a private literal', async () => {
    const agent = createDeliveryAgent(false);
    try {
      const byName = await sendOnce(target(receiver.url.replace('127.0.0.1', 'localhost')), agent, false);
      expect(byName).toMatchObject({ statusCode: null, error: expect.stringMatching(/^Refused: localhost resolves to/) });
      const byLiteral = await sendOnce(target(receiver.url), agent, false);
      expect(byLiteral).toMatchObject({ statusCode: null, error: expect.stringMatching(/^Refused: 127\.0\.0\.1/) });
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
    const open = createDeliveryAgent(true);
    try {
      expect(await sendOnce(target(receiver.url.replace('127.0.0.1', 'localhost')), open, true)).toMatchObject({ statusCode: 200, error: null });
    } finally {
      await open.close();
    }
  });
});
