/**
 * Hostile answers are findings, never kit errors: a value of the wrong type where the kit reads a list (a query's
 * `orders_list` an object, a refund search's `refund_orders` one object) or follows a URL (an APM `issuer_url` that is
 * not one) fails the schema check on that operation, and the checks that need the value say not applicable with a
 * reason. The reference gateway behind the fault-injecting proxy (test/support/fault-proxy.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/model.js';
import { runCli } from '../support/cli.js';
import { type FaultProxy, type ProxyFault, startFaultProxy } from '../support/fault-proxy.js';
import { PROXY_FAULTS } from '../support/proxy-faults.js';

const proxies: FaultProxy[] = [];
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
});

/** A run of the kit through the proxy applying `fault`, with the gateway's credentials. */
async function runThrough(fault: ProxyFault): Promise<{ results: RunResult; rewrites: number }> {
  const proxy = await startFaultProxy(fault);
  proxies.push(proxy);
  const run = await runCli(['--target', proxy.url, '--reporter', 'json'], {
    PAGI_MERCHANT_ID: proxy.merchantId,
    PAGI_ACCOUNT_ID: proxy.accountId,
    PAGI_SECRET: proxy.secret,
    NO_COLOR: '1',
  });
  const rewrites = proxy.rewrites();
  await proxy.close();
  return { results: run.results(), rewrites };
}

/** Kit errors of a run: its warnings and the results it could not run for one. */
function kitErrors(results: RunResult): string[] {
  return [
    ...results.warnings.filter((w) => w.startsWith('kit error')),
    ...results.checks
      .filter((c) => c.reason?.startsWith('kit error'))
      .map((c) => `${c.operation}/${c.checkId}: ${c.reason}`),
  ];
}

const failed = (results: RunResult) =>
  results.checks.filter((c) => c.status === 'failed').map((c) => `${c.operation}/${c.checkId}`);
const skipped = (results: RunResult) =>
  results.checks.filter((c) => c.status === 'skipped').map((c) => `${c.operation}/${c.checkId}: ${c.reason}`);

describe('hostile answers through a fault-injecting proxy', { timeout: 300_000 }, () => {
  it.each([
    [
      PROXY_FAULTS.queryOrdersListObject.name,
      PROXY_FAULTS.queryOrdersListObject,
      'retrievalTrans/responseMatchesSchema',
    ],
    [
      PROXY_FAULTS.refundSearchOrdersObject.name,
      PROXY_FAULTS.refundSearchOrdersObject,
      'retrievalRefund/responseMatchesSchema',
    ],
    [
      PROXY_FAULTS.apmIssuerUrlNotUrl.name,
      PROXY_FAULTS.apmIssuerUrlNotUrl,
      'authoriseApm/fieldFormatsFollowConventions',
    ],
  ] as const)('%s: a schema finding, no kit error, no check skipped', async (_name, fault, schemaCheck) => {
    const { results, rewrites } = await runThrough(fault);
    expect(rewrites).toBeGreaterThan(0);
    expect(kitErrors(results)).toEqual([]);
    expect(skipped(results)).toEqual([]);
    expect(failed(results)).toContain(schemaCheck);
    expect(results.verdict).toBe('NOT CONFORMANT');
    if (fault === PROXY_FAULTS.apmIssuerUrlNotUrl) {
      // The checks following the page say why they could not: the value, and which check reports it.
      const apm = results.checks.filter((c) => c.operation === 'authoriseApm');
      for (const id of ['issuerUrlRequestable', 'apmPaymentCompletedViaIssuerPage', 'apmPaymentDeclinedViaIssuerPage'])
        expect(apm.find((c) => c.checkId === id)).toMatchObject({
          status: 'not_applicable',
          reason: expect.stringMatching(/^the answer's issuer_url ".*" is not a URL; .*fieldFormatsFollowConventions/),
        });
      expect(apm.find((c) => c.checkId === 'notificationDelivered')?.reason).toMatch(/issuer_url .* is not a URL/);
    }
  });
});
