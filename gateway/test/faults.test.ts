/**
 * The variant switch: a typed registry of faults and neutral variants, and each hook in the gateway's code paths (the
 * behaviour switches, the extra refusal, the chunked wire) turning one conformant behaviour into the variant's. That
 * every fault is caught by the kit and every neutral variant passes is the self-test's (test/selftest).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateMembers } from '../../core/codecs/json.js';
import { readXml } from '../../core/codecs/xml.js';
import { FAMILIES } from '../../core/model.js';
import { checkOf } from '../../suites/registry.js';
import { FAULTS, findFault, startGateway, UnknownFaultError, type RunningGateway } from '../index.js';
import * as h from './helpers.js';

const p = h.profile;

/** A paid and authorised transaction and its capture request item. */
async function captureOne(gw: RunningGateway, amount = '10.00') {
  const { transactionId, body } = await h.pay(gw, { amount: '10.00' });
  return h.batch(gw, 'capture', [h.item(transactionId, body, { amount })]);
}

/** Whether a request without `encryption_data` is refused. */
async function unsignedRefused(gw: RunningGateway): Promise<boolean> {
  const { encryption_data: _none, ...body } = h.directBody();
  return (await h.send(gw.url + h.pathOf('authoriseDirect'), { body })).status >= 400;
}

/** The HTTP framing of a JSON response: Content-Length, or chunked transfer encoding. */
function framing(gw: RunningGateway): Promise<{ length?: string; chunked: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .request(
        gw.url + h.pathOf('capture'),
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              length: res.headers['content-length'],
              chunked: res.headers['transfer-encoding'] === 'chunked',
              body: Buffer.concat(chunks).toString(),
            }),
          );
        },
      )
      .on('error', reject)
      .end('{oops');
  });
}

/**
 * Per variant whose hook lives in the gateway's code paths (or that the README's first examples name): a probe that
 * is true while the gateway behaves as the reference does.
 */
const PROBES: Record<string, (gw: RunningGateway) => Promise<boolean>> = {
  'xml-root-wrong': async (gw) => readXml((await h.call(gw, 'authoriseDirect', h.directBody())).text, 'respon').ok,
  'checkout-method-get': async (gw) =>
    /<form [^>]*method="POST"/.test((await h.call(gw, 'checkout', h.checkoutBody())).text),
  'batch-drops-order-no': async (gw) => typeof (await captureOne(gw)).results[0]!.order_no === 'string',
  'batch-amount-as-number': async (gw) => typeof (await captureOne(gw)).results[0]!.amount === 'string',
  'signature-not-verified': async (gw) =>
    (await h.send(gw.url + h.pathOf('authoriseDirect'), { body: h.signed('authoriseDirect', h.directBody(), 'wrong') }))
      .status === p.errors.kinds.badSignature.status,
  'missing-signature-accepted': unsignedRefused,
  'signature-checked-after-operation': async (gw) => {
    const body = h.directBody();
    await h.send(gw.url + h.pathOf('authoriseDirect'), { body: h.signed('authoriseDirect', body, 'wrong') });
    return (
      (await h.query(gw, { order_no: body.order_no })).json.orders_list[0]?.query_result ===
      p.statusValues.query_result.notFound
    );
  },
  'direct-signature-ignores-currency': async (gw) => {
    const body = h.signed('authoriseDirect', h.directBody());
    const res = await h.send(gw.url + h.pathOf('authoriseDirect'), { body: { ...body, currency: 'EUR' } });
    return res.status === p.errors.kinds.badSignature.status;
  },
  'query-from-any-address': async (gw) =>
    (await h.query(gw, {}, { localAddress: '127.0.0.2' })).res.status === p.errors.kinds.refusedAddress.status,
  'refund-exceeds-capture': async (gw) => {
    const { transactionId, body } = await h.pay(gw, { amount: '10.00' });
    await h.batch(gw, 'capture', [h.item(transactionId, body)]);
    const out = await h.batch(gw, 'refund', [
      h.item(transactionId, body, { refund_amount: '10.01', refund_reason: 'too much' }),
    ]);
    return out.results[0]!.refund_status === p.statusValues.refund_status.failure;
  },
  'over-capture-allowed': async (gw) =>
    (await captureOne(gw, '10.01')).results[0]!.capture_status === p.statusValues.capture_status.failure,
  'capture-after-cancel': async (gw) => {
    const { transactionId, body } = await h.pay(gw, { amount: '10.00' });
    await h.batch(gw, 'cancel', [h.item(transactionId, body)]);
    return (
      (await h.batch(gw, 'capture', [h.item(transactionId, body)])).results[0]!.capture_status ===
      p.statusValues.capture_status.failure
    );
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
  'notification-unsigned': async (gw) => {
    const rx = await h.receiver();
    try {
      await h.pay(gw, { notify_url: rx.url });
      await gw.notificationsIdle();
      return typeof JSON.parse(rx.received[0]!.text).encryption_data === 'string';
    } finally {
      await rx.close();
    }
  },
  'card-unmasked': async (gw) => !String((await h.pay(gw)).result.card).includes(h.APPROVE_CARD),
  'invalid-input-accepted': async (gw) =>
    (await h.call(gw, 'authoriseDirect', h.directBody({ currency: 'x' }))).status ===
    p.errors.kinds.invalidInput.status,
  'birth-date-refused': async (gw) =>
    (await h.call(gw, 'authoriseDirect', h.directBody({ birth_date: '31-01-1990' }))).status === 200,
  'refund-search-unversioned-path': async (gw) =>
    (await h.call(gw, 'retrievalRefund', { merchant_id: h.MERCHANT, account_id: h.ACCOUNT })).status === 200,
  'batch-limit-too-strict': async (gw) => {
    const max = h.spec.operations.get('cancel')!.batch!.maxItems;
    const items = Array.from({ length: max }, (_, i) => ({ ...h.item(`T-none-${i}`, h.directBody()) }));
    return (await h.batch(gw, 'cancel', items)).res.status === 200;
  },
  'query-limit-too-loose': async (gw) => {
    const max = h.spec.operations.get('retrievalTrans')!.selectionLimit!.maxOrders;
    const values = Array.from({ length: max + 1 }, (_, i) => `O${i}`).join(p.selection.retrievalTrans.listSeparator);
    return (await h.query(gw, { order_no: values })).res.status === p.errors.kinds.overLimit.status;
  },
  'over-limit-silently-truncated': async (gw) => {
    const max = h.spec.operations.get('cancel')!.batch!.maxItems;
    const items = Array.from({ length: max + 1 }, (_, i) => ({ ...h.item(`T-none-${i}`, h.directBody()) }));
    return (await h.batch(gw, 'cancel', items)).res.status === p.errors.kinds.overLimit.status;
  },
  'malformed-body-500': async (gw) => (await h.send(gw.url + h.pathOf('capture'), { body: '{oops' })).status < 500,
  'json-member-named-twice': async (gw) =>
    duplicateMembers((await h.send(gw.url + h.pathOf('capture'), { body: '{oops' })).text).length === 0,
  'direct-note-unescaped': async (gw) => {
    const note = 'Leave <b>here</b> & "there"';
    const read = readXml((await h.call(gw, 'authoriseDirect', h.directBody({ note }))).text, 'respon');
    return read.ok && read.value.note === note;
  },
  'json-content-type-text': async (gw) =>
    String((await captureOne(gw)).res.headers['content-type']).startsWith('application/json'),
  'chunked-responses': async (gw) => {
    const got = await framing(gw);
    return got.length === String(Buffer.byteLength(got.body)) && !got.chunked;
  },
};

describe('variant registry', () => {
  it('holds at least 40 faults over every family and 10 neutral variants, each well described', () => {
    const faults = FAULTS.filter((f) => f.kind === 'fault');
    expect(faults.length).toBeGreaterThanOrEqual(40);
    expect(FAULTS.filter((f) => f.kind === 'neutral').length).toBeGreaterThanOrEqual(10);
    expect(new Set(faults.map((f) => checkOf(f.expectedCheck).family))).toEqual(new Set(FAMILIES));
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.switches || f.refuse || f.reply || f.wire || f.notification, f.name).toBeTruthy();
      if (f.kind === 'neutral') continue;
      expect(f.expectedCheck).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect([...h.spec.requirements.keys()], f.name).toContain(f.requirement);
    }
    for (const name of ['xml-root-wrong', 'checkout-method-get', 'batch-drops-order-no', 'json-keys-reversed'])
      expect(findFault(name).name).toBe(name);
  });

  it('refuses an unknown variant name, listing the known ones', async () => {
    expect(() => findFault('no-such-fault')).toThrow(UnknownFaultError);
    expect(() => findFault('no-such-fault')).toThrow(FAULTS.map((f) => f.name).join(', '));
    await expect(startGateway({ fault: 'no-such-fault' })).rejects.toThrow(
      /Unknown fault 'no-such-fault'\. The faults are /,
    );
  });

  it('has a behaviour probe for every switch, the refusal hook and the chunked wire', () => {
    const switches = new Set(FAULTS.filter((f) => PROBES[f.name]).flatMap((f) => Object.keys(f.switches ?? {})));
    const all = new Set(FAULTS.flatMap((f) => Object.keys(f.switches ?? {})));
    expect([...all].filter((s) => !switches.has(s))).toEqual([]);
    expect(Object.keys(PROBES).filter((name) => !FAULTS.some((f) => f.name === name))).toEqual([]);
  });
});

describe('each probed variant switches behaviour', () => {
  let clean: RunningGateway;
  const started: RunningGateway[] = [];
  beforeAll(async () => {
    clean = await startGateway();
    started.push(clean);
  });
  afterAll(() => Promise.all(started.map((g) => g.close())));

  it.each(Object.keys(PROBES))('%s', async (name) => {
    const variant = await startGateway({ fault: name });
    started.push(variant);
    expect(variant.fault?.name).toBe(name);
    expect(await PROBES[name]!(clean)).toBe(true);
    expect(await PROBES[name]!(variant)).toBe(false);
  });
});
