/**
 * What leaves the kit, end to end in child processes: a target echoing the secret and a card number (in a value, a
 * JSON key, an XML element name and a response header name, the card written with dots) fails NOT CONFORMANT and
 * no report or console line holds them; a target handing over an issuer_url and a checkout form action on another
 * host gets findings and that host sees no connection; a non-loopback target not declared a sandbox is refused
 * (exit 2) before anything is sent.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startCountingListener, startRewritingTarget, type RewritingTarget } from './fixtures/rewriting-proxy.js';

const CARD = '4111111111111111';
const DOTTED = '4111.1111.1111.1111';
const REPORTERS = ['--reporter', 'console,json,junit,markdown,har,html'];

function credentialsEnv(t: RewritingTarget): NodeJS.ProcessEnv {
  return {
    PAGI_MERCHANT_ID: t.credentials.merchantId,
    PAGI_ACCOUNT_ID: t.credentials.accountId,
    PAGI_SECRET: t.credentials.secret,
  };
}

/** Every file under a folder, as text. */
function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      out.set(
        path.join(entry.parentPath, entry.name),
        fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'),
      );
  }
  return out;
}

describe.concurrent('egress', { timeout: 300_000 }, () => {
  let echo: RewritingTarget;
  let foreign: RewritingTarget;
  let listener: Awaited<ReturnType<typeof startCountingListener>>;

  beforeAll(async () => {
    listener = await startCountingListener('127.0.0.2');
    echo = await startRewritingTarget(({ headers, body }) => {
      const secret = echo.credentials.secret;
      const type = String(headers['content-type'] ?? '');
      const extra = { [`x-echo-${secret}`]: `key ${secret}` };
      if (type.includes('json')) {
        try {
          const value = JSON.parse(body);
          if (value && typeof value === 'object' && !Array.isArray(value)) {
            return {
              headers: extra,
              body: JSON.stringify({ ...value, [`echo_${secret}`]: `your key is ${secret}, your card ${DOTTED}` }),
            };
          }
        } catch {
          // not JSON after all: answered as is
        }
      }
      if (type.includes('xml'))
        return {
          headers: extra,
          body: body.replace(
            '</respon>',
            `<echo_${secret}>your key is ${secret}, your card ${DOTTED}</echo_${secret}></respon>`,
          ),
        };
      if (type.includes('html'))
        return {
          headers: extra,
          body: body.replace('</body>', `<p>your key is ${secret}, your card ${DOTTED}</p></body>`),
        };
      return { headers: extra };
    });
    foreign = await startRewritingTarget(({ headers, body }) => {
      const type = String(headers['content-type'] ?? '');
      if (type.includes('xml'))
        return {
          body: body.replace(/<issuer_url>[^<]*<\/issuer_url>/, `<issuer_url>${listener.url}/issuer/page</issuer_url>`),
        };
      if (type.includes('html'))
        return { body: body.replace(/action="[^"]*\/v1\/checkout"/, `action="${listener.url}/collect"`) };
      return {};
    });
  });
  afterAll(async () => {
    await Promise.all([echo?.close(), foreign?.close(), listener?.close()]);
  });

  it('a target echoing the secret and a card number is NOT CONFORMANT, and no output holds them', async () => {
    const run = await runCli(
      ['--target', echo.url, '--only', 'shape,conventions,security', ...REPORTERS],
      credentialsEnv(echo),
    );
    const secret = echo.credentials.secret;
    expect(run.code, run.stderr).toBe(1);
    const results = run.results();
    expect(results.verdict).toBe('NOT CONFORMANT');
    const failed = (id: string) =>
      results.checks.filter((c) => c.checkId === id && c.status === 'failed').map((c) => c.operation);
    expect(failed('noSecretInResponse').sort()).toEqual([
      'authoriseApm',
      'authoriseDirect',
      'cancel',
      'capture',
      'checkout',
      'payout',
      'refund',
      'retrievalRefund',
      'retrievalTrans',
      'review',
    ]);
    const secretFinding = results.checks.find((c) => c.checkId === 'noSecretInResponse' && c.operation === 'capture')!
      .findings[0]!;
    expect(secretFinding).toMatchObject({
      code: 'SECRET_ECHOED',
      severity: 'invariant',
      requirementIds: ['PAGI-INV-009'],
    });
    expect(secretFinding.message).toMatch(/body, header name, header value/);
    expect(failed('noFullCardNumberInResponse')).toEqual(expect.arrayContaining(['authoriseDirect', 'checkout']));
    // The reports and the console output hold neither the secret nor the card, with or without separators.
    const files = filesUnder(run.out);
    expect([...files.keys()].map((f) => path.basename(f)).sort()).toEqual([
      'exchanges.har',
      'junit.xml',
      'report.html',
      'results.json',
      'summary.md',
    ]);
    for (const [file, text] of [...files, ['stdout', run.stdout], ['stderr', run.stderr]] as [string, string][]) {
      expect(text.includes(secret), `${file} holds the secret`).toBe(false);
      expect(text.includes(CARD) || text.includes(DOTTED), `${file} holds the card number`).toBe(false);
    }
    // The masks show where the target echoed them: in values, keys and header names alike.
    const har = files.get(path.join(run.out, 'exchanges.har'))!;
    expect(har).toContain('x-echo-[SECRET]');
    expect(har).toContain('echo_[SECRET]');
    expect(har).toContain('411111******1111');
  });

  it('a URL from the target on another host is a finding and never requested; no card data goes to a failed form action', async () => {
    const only =
      'authoriseApm/issuerUrlRequestable,checkout/checkoutFormPostsToBaseUrl,checkout/checkoutPostBackCompletesPayment';
    const run = await runCli(['--target', foreign.url, '--only', only, ...REPORTERS], credentialsEnv(foreign));
    const results = run.results();
    const result = (op: string, id: string) => results.checks.find((c) => c.operation === op && c.checkId === id)!;
    const issuer = result('authoriseApm', 'issuerUrlRequestable');
    expect(issuer.status).toBe('skipped');
    expect(issuer.reason).toMatch(
      /not requested: http:\/\/127\.0\.0\.2:[0-9]+ is neither the target's origin .* nor a host listed in allowedHosts/,
    );
    // One finding per issuer URL the probe was handed (a paying and a declining APM payment).
    expect(issuer.findings.length).toBeGreaterThan(0);
    expect(issuer.findings).toEqual(
      issuer.findings.map(() => expect.objectContaining({ code: 'OFF_TARGET_URL', severity: 'info' })),
    );
    expect(result('checkout', 'checkoutFormPostsToBaseUrl')).toMatchObject({
      status: 'failed',
      findings: [expect.objectContaining({ code: 'FORM_ACTION' })],
    });
    expect(result('checkout', 'checkoutPostBackCompletesPayment')).toMatchObject({ status: 'not_applicable' });
    expect(result('checkout', 'checkoutPostBackCompletesPayment').reason).toMatch(/nothing was submitted to it/);
    expect(results.verdict).toBe('NOT CONFORMANT');
    expect(listener.connections()).toBe(0);
  });

  it('refuses a non-loopback target not declared a sandbox (exit 2) before sending anything', async () => {
    // Every request of the kit would go through this proxy: it sees a connection as soon as anything is sent.
    let proxied = 0;
    const proxy = http.createServer();
    proxy.on('connection', (socket) => {
      proxied++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const target = ['--target', 'https://gateway.sandbox.invalid', '--proxy', proxyUrl];
      const refused = await runCli(target, {
        PAGI_MERCHANT_ID: 'M',
        PAGI_ACCOUNT_ID: 'A',
        PAGI_SECRET: 's3cret-value',
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim()).toMatch(
        /^pagi-conform: The target https:\/\/gateway\.sandbox\.invalid is not a loopback address .* pass --allow-live .*\.$/,
      );
      expect(fs.existsSync(refused.out)).toBe(false);
      expect(proxied).toBe(0);
      // Declared a sandbox, the same run goes on to contact the target (through the proxy), which shows the guard is what stopped it.
      const declared = await runCli(target, {
        PAGI_MERCHANT_ID: 'M',
        PAGI_ACCOUNT_ID: 'A',
        PAGI_SECRET: 's3cret-value',
        PAGI_ENVIRONMENT: 'sandbox',
      });
      expect(declared.code).toBe(2);
      expect(declared.stderr).toMatch(/is unreachable/);
      expect(proxied).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
