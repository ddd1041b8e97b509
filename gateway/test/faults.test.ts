/** The fault switch: a typed registry, and each fault turns one conformant behaviour into a deviation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readXml } from '../../src/codecs/xml.js';
import type { Family } from '../../src/model.js';
import { FAULTS, findFault, startGateway, UnknownFaultError, type RunningGateway } from '../index.js';
import * as h from './helpers.js';

const FAMILIES: Family[] = ['shape', 'media', 'conventions', 'limits', 'status', 'security', 'lifecycle', 'events'];
const p = h.profile;

/** A paid and authorised transaction and its capture request item. */
async function captureOne(gw: RunningGateway) {
  const { transactionId, body } = await h.pay(gw, { amount: '10.00' });
  return h.batch(gw, 'capture', [h.item(transactionId, body)]);
}

/** Per fault: a probe that is true while the gateway behaves as the interface says. */
const PROBES: Record<string, (gw: RunningGateway) => Promise<boolean>> = {
  'xml-root-wrong': async (gw) => readXml((await h.call(gw, 'authoriseDirect', h.directBody())).text, 'respon').ok,
  'checkout-method-get': async (gw) => /<form [^>]*method="POST"/.test((await h.call(gw, 'checkout', h.checkoutBody())).text),
  'batch-drops-order-no': async (gw) => typeof (await captureOne(gw)).results[0]!.order_no === 'string',
  'batch-amount-as-number': async (gw) => typeof (await captureOne(gw)).results[0]!.amount === 'string',
  'signature-not-verified': async (gw) =>
    (await h.send(gw.url + h.pathOf('authoriseDirect'), { body: h.signed('authoriseDirect', h.directBody(), 'wrong') })).status === p.errors.kinds.badSignature.status,
  'query-from-any-address': async (gw) => (await h.query(gw, {}, { localAddress: '127.0.0.2' })).res.status === p.errors.kinds.refusedAddress.status,
  'refund-exceeds-capture': async (gw) => {
    const { transactionId, body } = await h.pay(gw, { amount: '10.00' });
    await h.batch(gw, 'capture', [h.item(transactionId, body)]);
    const out = await h.batch(gw, 'refund', [h.item(transactionId, body, { refund_amount: '10.01', refund_reason: 'too much' })]);
    return out.results[0]!.refund_status === p.statusValues.refund_status.failure;
  },
  'notification-never-sent': async (gw) => {
    const rx = await h.receiver();
    try {
      await h.pay(gw, { notify_url: rx.url });
      await gw.notificationsIdle();
      return rx.received.length === 1;
    } finally {
      await rx.close();
    }
  },
  'malformed-body-500': async (gw) => (await h.send(gw.url + h.pathOf('capture'), { body: '{oops' })).status < 500,
  'json-content-type-text': async (gw) => String((await captureOne(gw)).res.headers['content-type']).startsWith('application/json'),
};

describe('fault registry', () => {
  it('holds at least one XML, one HTML and one batch fault, each well described', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(3);
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.expectedCheck).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(h.spec.requirements.has(f.requirement), f.requirement).toBe(true);
      expect(FAMILIES).toContain(f.family);
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.switches || f.reply || f.wire, f.name).toBeTruthy();
    }
    for (const name of ['xml-root-wrong', 'checkout-method-get', 'batch-drops-order-no']) expect(findFault(name).name).toBe(name);
  });

  it('refuses an unknown fault name, listing the known ones', async () => {
    expect(() => findFault('no-such-fault')).toThrow(UnknownFaultError);
    expect(() => findFault('no-such-fault')).toThrow(FAULTS.map((f) => f.name).join(', '));
    await expect(startGateway({ fault: 'no-such-fault' })).rejects.toThrow(/unknown fault 'no-such-fault'; known faults: /);
  });

  it('has a behaviour probe for every fault', () => {
    expect(Object.keys(PROBES).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });
});

describe('each fault switches behaviour', () => {
  let clean: RunningGateway;
  const started: RunningGateway[] = [];
  beforeAll(async () => {
    clean = await startGateway();
    started.push(clean);
  });
  afterAll(() => Promise.all(started.map((g) => g.close())));

  it.each(FAULTS.map((f) => f.name))('%s', async (name) => {
    const faulty = await startGateway({ fault: name });
    started.push(faulty);
    expect(faulty.fault?.name).toBe(name);
    expect(await PROBES[name]!(clean)).toBe(true);
    expect(await PROBES[name]!(faulty)).toBe(false);
  });
});
