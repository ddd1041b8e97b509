/**
 * `proxy --notify` with a profile whose request signature covers notify_url (legacy-sha256-pipe): the proxy replaces
 * notify_url by its own receiver and signs the request again with the configured secret, so the gateway accepts it;
 * the notification comes to the proxy, is judged, and reaches the merchant's own URL.
 */
import { expect, it } from 'vitest';
import { openProxy } from '../../cli/proxy.js';
import { defaults, type RunOptions } from '../../core/config/options.js';
import { loadProfile } from '../../core/profile/load.js';
import { sign, stringToSign } from '../../core/signing.js';
import { startGateway } from '../../gateway/index.js';
import { sandboxCredentials } from '../../pact/interactions.js';
import { startNotificationHandler } from '../../examples/merchant/notifications.js';

it('re-signs a request whose notify_url it rewrote, where the profile signs notify_url', async () => {
  const name = 'legacy-sha256-pipe';
  const credentials = sandboxCredentials();
  const profile = loadProfile(name).profile;
  const gateway = await startGateway({ profile: name });
  const handler = await startNotificationHandler();
  const lines: string[] = [];
  const options = {
    ...defaults('proxy'),
    ...credentials,
    upstream: gateway.url,
    profile: name,
    proxyPort: 0,
    notify: true,
    reporter: [],
  };
  const run = await openProxy(options as RunOptions, (l) => lines.push(l));
  try {
    const c = profile.fields.card;
    const orderNo = `ORD-resign-${Date.now().toString(36)}`;
    const body: Record<string, unknown> = {
      merchant_id: credentials.merchantId,
      account_id: credentials.accountId,
      order_no: orderNo,
      currency: 'USD',
      amount: '25.00',
      notify_url: handler.url,
      [c.number]: '4111111111111111',
      [c.expiryMonth]: '12',
      [c.expiryYear]: '2030',
      [c.securityCode]: '123',
    };
    expect(stringToSign(profile.signature, 'request', 'authoriseDirect', body)).toContain(handler.url);
    body.encryption_data = sign(profile.signature, 'request', 'authoriseDirect', body, credentials.secret);
    const res = await fetch(`${run.proxy.url}/v1/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<transaction_id>');
    const notified = await handler.waitFor(orderNo, 5000);
    expect(notified.map((n) => n.order_no)).toContain(orderNo);
    await run.proxy.idle();
    // The proxy prints the notification's line once the merchant's answer is back.
    for (let i = 0; i < 250 && !lines.some((l) => l.startsWith('notification POST')); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(
      lines.some((l) => l.startsWith('authoriseDirect#1') && l.endsWith("your request: 0, the gateway's answer: 0")),
    ).toBe(true);
    expect(
      lines.some((l) => l.startsWith(`notification POST for ${orderNo}`) && l.includes('the merchant answered 200')),
    ).toBe(true);
  } finally {
    await run.stop();
    await gateway.close();
    await handler.close();
  }
});
