/** The egress policy (target origin + allowedHosts, internal addresses), the client following URLs under it, and the live-target guard. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createProbeClient } from '../../engine/client.js';
import { egressPolicy, isInternalAddress, isLoopbackHost } from '../../engine/egress.js';
import { moneyGuard } from '../../engine/runner.js';
import { loadProfile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { startCountingListener } from './fixtures/rewriting-proxy.js';
import { runConfig } from '../support/config.js';

describe('egress policy', () => {
  const policy = egressPolicy('http://127.0.0.1:8080', [
    'issuer.sandbox.example',
    '*.pages.example',
    'static.example:8443',
    '10.1.2.3',
  ]);

  it("allows the target's origin and the listed hosts only", () => {
    expect(policy.refusal('http://127.0.0.1:8080/v1/issuer/x')).toBeUndefined();
    expect(policy.refusal('https://issuer.sandbox.example/pay')).toBeUndefined();
    expect(policy.refusal('https://a.b.pages.example/pay')).toBeUndefined();
    expect(policy.refusal('https://static.example:8443/x')).toBeUndefined();
    expect(policy.refusal('http://10.1.2.3/x')).toBeUndefined();
    expect(policy.refusal('https://pages.example/x')).toMatch(
      /neither the target's origin http:\/\/127\.0\.0\.1:8080 nor a host listed in allowedHosts/,
    );
    expect(policy.refusal('https://static.example/x')).toBeDefined(); // listed with another port
    expect(policy.refusal('http://127.0.0.1:8081/x')).toBeDefined(); // another port of the target's host
    expect(policy.refusal('http://127.0.0.2:8080/x')).toBeDefined();
    expect(policy.refusal('https://evil.example/issuer.sandbox.example')).toBeDefined();
  });

  it('refuses internal addresses, other schemes and relative URLs, saying why', () => {
    expect(policy.refusal('http://169.254.169.254/latest/meta-data/')).toMatch(/an internal address/);
    expect(policy.refusal('http://[fd00:ec2::254]/latest/')).toMatch(/an internal address/);
    expect(policy.refusal('http://192.168.1.1/')).toMatch(/an internal address/);
    expect(policy.refusal('file:///etc/passwd')).toMatch(/file: URLs are never requested/);
    expect(policy.refusal('/relative')).toMatch(/not an absolute URL/);
  });

  it('refuses a listed name that resolves to an internal address, unless that address is listed', () => {
    expect(policy.addressRefusal('issuer.sandbox.example', '169.254.169.254')).toMatch(
      /resolves to 169\.254\.169\.254, an internal address/,
    );
    expect(policy.addressRefusal('issuer.sandbox.example', '::ffff:10.0.0.1')).toBeDefined();
    expect(policy.addressRefusal('issuer.sandbox.example', '10.1.2.3')).toBeUndefined();
    expect(policy.addressRefusal('issuer.sandbox.example', '93.184.215.14')).toBeUndefined();
    expect(policy.addressRefusal('127.0.0.1', '127.0.0.1')).toBeUndefined(); // the target's own host
  });

  it('tells loopback and internal addresses apart from names that only look like them', () => {
    for (const host of ['localhost', '127.0.0.1', '127.9.9.9', '[::1]', '::1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['127.0.0.1.nip.io', 'gateway.example', '10.0.0.1', '::2'])
      expect(isLoopbackHost(host), host).toBe(false);
    for (const a of ['10.0.0.1', '172.16.0.1', '100.100.100.200', 'fe80::1', 'fc00::1', '0.0.0.0'])
      expect(isInternalAddress(a), a).toBe(true);
    for (const a of ['93.184.215.14', '2606:2800:220:1::', 'gateway.example'])
      expect(isInternalAddress(a), a).toBe(false);
  });
});

describe('following URLs from the target', () => {
  const { profile } = loadProfile('reference');
  const config = (baseUrl: string) => runConfig(baseUrl);
  const client = (baseUrl: string, allowedHosts: string[]) =>
    createProbeClient({
      spec: kitSpec(),
      profile,
      config: config(baseUrl),
      secret: 'egress-test-secret',
      cardSecurityCode: '987',
      // Resolving a name runs on libuv's thread pool, which the other test worker (a thread of this process) may keep
      // busy for seconds: a short time-out would then end the lookup before the guard judges the address.
      transport: { timeoutMs: 20_000, maxResponseBytes: 64 * 1024, concurrency: 2, rate: 0, allowedHosts },
      tag: 'e',
    });

  it('does not request a URL off the target: the exchange says why, and the host sees no connection', async () => {
    const foreign = await startCountingListener('127.0.0.2');
    const kit = client('http://127.0.0.1:1', []);
    try {
      const page = await kit.follow!(`${foreign.url}/issuer`, {
        method: 'POST',
        form: { card_number: profile.payments.testCards.approve[0]!, note: 'x' },
      });
      expect(page.response).toBeUndefined();
      expect(page.error).toEqual({
        kind: 'off-target',
        message: expect.stringMatching(/^not requested: http:\/\/127\.0\.0\.2:[0-9]+ is neither the target's origin/),
      });
      const metadata = await kit.follow!('http://169.254.169.254/latest/meta-data/', { method: 'GET' });
      expect(metadata.error?.kind).toBe('off-target');
      expect(foreign.connections()).toBe(0);
    } finally {
      await kit.close();
      await foreign.close();
    }
  });

  it('refuses at connect time a listed name that resolves to an internal address not listed itself', async () => {
    const local = await startCountingListener('127.0.0.1');
    const port = new URL(local.url).port;
    const kit = client('http://127.0.0.3:1', ['localhost']);
    try {
      const page = await kit.follow!(`http://localhost:${port}/issuer`, { method: 'GET' });
      expect(page.error).toEqual({
        kind: 'off-target',
        message: expect.stringMatching(/^not requested: localhost resolves to (127\.0\.0\.1|::1), an internal address/),
      });
      expect(local.connections()).toBe(0);
    } finally {
      await kit.close();
      await local.close();
    }
  });

  it('never follows a redirect, and says when it points off the target', async () => {
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kit = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, []);
    try {
      const moved = await kit.send('capture', {});
      expect(moved.error).toEqual({
        kind: 'redirect',
        message: expect.stringMatching(
          /^redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/ not followed \(http:\/\/169\.254\.169\.254 is neither the target's origin .* \(an internal address/,
        ),
      });
      expect(requests).toBe(1);
    } finally {
      await kit.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('requests a host listed in allowedHosts', async () => {
    const foreign = await startCountingListener('127.0.0.2');
    const kit = client('http://127.0.0.1:1', ['127.0.0.2']);
    try {
      const page = await kit.follow!(`${foreign.url}/issuer`, { method: 'GET' });
      expect(page.response?.status).toBe(200);
      expect(foreign.connections()).toBe(1);
    } finally {
      await kit.close();
      await foreign.close();
    }
  });
});

describe('live-target guard', () => {
  it('lets a loopback target, a declared sandbox or --allow-live move money, and refuses any other target', () => {
    expect(moneyGuard({ allowLive: false })).toBe('loopback');
    expect(moneyGuard({ target: 'http://127.0.0.1:8080', allowLive: false })).toBe('loopback');
    expect(moneyGuard({ target: 'http://[::1]:8080', allowLive: false })).toBe('loopback');
    expect(moneyGuard({ target: 'https://gw.example', environment: 'sandbox', allowLive: false })).toBe('sandbox');
    expect(moneyGuard({ target: 'https://gw.example', environment: 'live', allowLive: true })).toBe('allow-live');
    for (const target of ['https://gw.example', 'http://127.0.0.1.nip.io', 'http://10.0.0.5:8080']) {
      expect(() => moneyGuard({ target, allowLive: false }), target).toThrow(
        /is not a loopback address .*--allow-live/,
      );
    }
    expect(() => moneyGuard({ target: 'https://gw.example', environment: 'live', allowLive: false })).toThrow(
      /--allow-live/,
    );
  });
});
