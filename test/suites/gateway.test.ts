/**
 * Every probe run against the reference gateway (in-process, ephemeral port) through the engine's ProbeClient and
 * notification receiver, and every check run on its observations: the reference gateway is conformant, so no check
 * may report a failing finding, and nothing may be inconclusive or skipped but for the stated reasons.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../gateway/index.js';
import { createProbeClient, type KitClient } from '../../engine/client.js';
import { maskRulesFor } from '../../engine/evidence.js';
import { startReceiver, type Receiver } from '../../engine/receiver.js';
import type { CheckContext, Observation, OperationKey } from '../../core/model.js';
import { loadProfile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { operationSet, operationsIn } from '../../core/spec/operations.js';
import { CHECKS, PROBES } from '../../suites/registry.js';
import { runConfig } from '../support/config.js';

const spec = kitSpec();
const { profile } = loadProfile('reference');
let gateway: RunningGateway;
let receiver: Receiver;
let ctx: CheckContext;
let client: KitClient;
const observations = new Map<string, Promise<Observation>>();

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  const secret = gateway.config.merchants[0]!.accounts[0]!.secret!;
  const cards = { approve: profile.payments.testCards.approve[0]!, decline: profile.payments.testCards.decline[0]! };
  receiver = await startReceiver({
    listenOn: '127.0.0.1:0',
    rules: maskRulesFor(profile, secret, Object.values(cards)),
    acknowledgement: profile.notifications.acknowledgement,
  });
  const config = runConfig(gateway.baseUrl, {
    merchantId: 'M10001',
    accountId: 'A20001',
    orderPrefix: 'IT',
    seed: 42,
    cards,
    paymentMethods: { valid: gateway.config.apm.paymentMethods, unknown: 'NO_SUCH_METHOD' },
    unregisteredAddress: '127.0.0.2',
    notifyUrl: receiver.notifyUrl,
    notifyWaitMs: 2000,
    negativeCases: 6,
  });
  ctx = { spec, profile, config, requirement: (id) => spec.requirements.get(id)! };
  client = createProbeClient({
    spec,
    profile,
    config,
    secret,
    cardSecurityCode: '123',
    transport: { timeoutMs: 10_000, maxResponseBytes: 8 * 1024 * 1024, concurrency: 8, rate: 0 },
    notifications: receiver,
    tag: 'it',
  });
});

afterAll(async () => {
  await gateway?.close();
  await receiver?.close();
  await client?.close();
});

function observe(probeId: string, op: OperationKey): Promise<Observation> {
  const key = `${probeId}@${op}`;
  if (!observations.has(key)) observations.set(key, PROBES.find((p) => p.id === probeId)!.run(op, client, ctx));
  return observations.get(key)!;
}

describe('probes and checks against the reference gateway', () => {
  // The deep family runs only with a depth; test/suites/deep.test.ts runs it against the reference gateway.
  for (const check of CHECKS.filter((c) => c.family !== 'deep')) {
    for (const op of operationsIn(spec, check.operations)) {
      it(`${check.id} on ${op}`, async () => {
        const o = await observe(check.probe, op);
        expect(o.inconclusive, `probe ${check.probe} inconclusive`).toBeUndefined();
        const outcome = check.run(o, ctx);
        if ('notApplicable' in outcome) {
          expect(NOT_APPLICABLE_ALLOWED, `${check.id}@${op} not applicable: ${outcome.notApplicable}`).toContain(
            `${check.id}@${op}`,
          );
          return;
        }
        expect(
          outcome.filter((f) => f.severity !== 'info').map((f) => `${f.code} ${f.location.pointer} ${f.message}`),
        ).toEqual([]);
      });
    }
  }
});

/** (check, operation) pairs that do not apply against the reference gateway with the reference profile, by design. */
const NOT_APPLICABLE_ALLOWED = [
  ...operationSet(spec, 'all').map((op) => `requestHeadersPerProfile@${op}`),
  // query and refund search only read; payout state is not readable through the interface
  ...['retrievalTrans', 'retrievalRefund', 'payout'].map((op) => `wrongFormatChangesNothing@${op}`),
  // the query and refund-search requests have no format-constrained field to break
  ...['retrievalTrans', 'retrievalRefund'].map((op) => `wrongFormatRefused@${op}`),
  // the reference profile restricts only the query to registered addresses
  'queryRefusedFromUnregisteredAddress@retrievalRefund',
  // the checkout request example carries no anti-fraud cookie
  'antifraudCookieUnderProfileName@checkout',
];
