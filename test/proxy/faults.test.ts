/**
 * The proxy in front of the reference gateway switched to a fault (`serve --fault`): the merchant example's whole
 * integration, itself without a mistake, gives findings marked "the gateway's answer" from the check that judges what
 * the fault breaks (a single answer's check, an engine rule, an invariant on the ledger, the notification's check),
 * and none marked "your request".
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openProxy } from '../../cli/proxy.js';
import { defaults, type RunOptions } from '../../core/config/options.js';
import type { Finding } from '../../core/model.js';
import { createAjv } from '../../core/spec/ajv.js';
import { startGateway } from '../../gateway/index.js';
import { sandboxCredentials } from '../../pact/interactions.js';
import { Merchant } from '../../examples/merchant/client.js';
import { integration } from '../../examples/merchant/flow.js';
import { startNotificationHandler } from '../../examples/merchant/notifications.js';
import { tempDir } from '../support/temp.js';

/** Each fault with the check that finds it and the operation it is found on. */
const CASES = [
  {
    fault: 'response-signature-wrong',
    checkId: 'responseSignatureVerifies',
    operation: 'capture',
    requirement: 'PAGI-AUTH-007',
  },
  {
    fault: 'batch-amount-three-decimals',
    checkId: 'fieldFormatsFollowConventions',
    operation: 'capture',
    requirement: 'PAGI-FMT-001',
  },
  {
    fault: 'refund-search-500',
    checkId: 'neverServerErrorAnswer',
    operation: 'retrievalRefund',
    requirement: 'PAGI-INV-008',
  },
  {
    fault: 'query-ignores-captures',
    checkId: 'queryShowsAcknowledgedState',
    operation: 'retrievalTrans',
    requirement: 'PAGI-INV-014',
  },
  {
    fault: 'notification-unsigned',
    checkId: 'notificationFollowsProfile',
    operation: 'authoriseDirect',
    requirement: 'PAGI-EVT-002',
  },
] as const;

const credentials = sandboxCredentials();
const validateResults = createAjv().compile(
  JSON.parse(fs.readFileSync(path.resolve('schemas/results.schema.json'), 'utf8')),
);
const handler = await startNotificationHandler();
afterAll(() => handler.close());

describe.each(CASES)('serve --fault $fault', ({ fault, checkId, operation, requirement }) => {
  it(`gives "the gateway's answer" findings of ${checkId} on ${operation}, none of "your request"`, async () => {
    const gateway = await startGateway({ fault });
    const out = tempDir('pagi-proxy-fault-');
    try {
      const options = {
        ...defaults('proxy'),
        ...credentials,
        upstream: gateway.url,
        proxyPort: 0,
        notify: true,
        reporter: ['json', 'junit', 'html'],
        out,
      } as RunOptions;
      const findings: Finding[] = [];
      const run = await openProxy(
        options,
        () => {},
        ['pagi-conform', 'proxy'],
        (j) => findings.push(...j.request, ...j.answer),
      );
      const merchant = new Merchant({ baseUrl: run.proxy.url, ...credentials });
      const payment = await integration(merchant, handler.url, `ORD-${fault}-${Date.now().toString(36)}`);
      if (fault === 'notification-unsigned') await handler.waitFor(payment.orderNo, 5000);
      await run.proxy.idle();
      const { result, ledger } = await run.stop();
      findings.push(...ledger);
      const all = result.checks.flatMap((c) => c.findings);
      expect(all.filter((f) => f.side === 'request').map((f) => f.message)).toEqual([]);
      const found = all.filter((f) => f.checkId === checkId);
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((f) => f.side === 'answer' && f.requirementIds.includes(requirement))).toBe(true);
      expect(result.checks.find((c) => c.checkId === checkId && c.operation === operation)?.status).toBe('failed');
      // A must or invariant finding fails the run at the default --fail-on must; a profile one is a warning there.
      const failing = found.some((f) => f.severity === 'must' || f.severity === 'invariant');
      expect(result.exitCode).toBe(failing ? 1 : 0);
      // results.json (format 1.8, findings with their side) is valid against the results schema.
      const written = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
      expect(validateResults(written), JSON.stringify(validateResults.errors)).toBe(true);
      expect(
        written.checks.flatMap((c: { findings: Finding[] }) => c.findings).every((f: Finding) => f.side === 'answer'),
      ).toBe(true);
      // The reports tell the sides apart too.
      expect(fs.readFileSync(path.join(out, 'junit.xml'), 'utf8')).toContain('the gateway&apos;s answer: [');
      expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain("the gateway's answer");
    } finally {
      await gateway.close();
    }
  });
});
