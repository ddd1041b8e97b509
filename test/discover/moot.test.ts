/**
 * The moot leaves of the neighbourhood proof (test/support/moot.ts) are moot: the reference gateway serving a truth
 * and serving it with the leaf changed answers the same requests alike (status, refusal code, statuses, the checkout
 * page's inputs); and the same change where the rule's condition does not hold does change an answer, so each probe
 * can tell. The share of leaves stated over the leaves not moot rests on these rules (`combine` with one selecting
 * field rests on its reading of gateway/ops/selection.ts alone: no request gives two selectors to combine).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { OperationKey } from '../../core/model.js';
import { encodeForm } from '../../core/codecs/form.js';
import { sign, verify } from '../../core/signing.js';
import { kitSpec } from '../../core/spec/load.js';
import type { Profile } from '../../core/profile/load.js';
import { sampleBody } from '../../engine/sample.js';
import { runConfig } from '../support/config.js';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { MOOT_RULES, mootRule } from '../support/moot.js';
import { tempFile } from '../support/temp.js';

type Json = Record<string, any>;
const spec = kitSpec();
const reference: Json = parse(fs.readFileSync(new URL('../../spec/profiles/reference.yaml', import.meta.url), 'utf8'));
const open: RunningGateway[] = [];
let orders = 0;
afterAll(async () => {
  await Promise.all(open.map((g) => g.close()));
});

async function serve(profile: Json): Promise<RunningGateway> {
  const gw = await startGateway({ port: 0, host: '127.0.0.1', profile: tempFile('moot.yaml', stringify(profile)) });
  open.push(gw);
  return gw;
}

/** A signed request of the spec's example body (fields overridden): the body sent, the answer's status and text. */
async function send(
  gw: RunningGateway,
  profile: Json,
  op: OperationKey,
  fields: Json = {},
  encoding: 'json' | 'form' = 'json',
): Promise<{ body: Json; status: number; text: string }> {
  const account = gw.config.merchants[0]!.accounts[0]!;
  const settings = { config: runConfig(gw.url), cardSecurityCode: '123' };
  const fresh = { orderNo: `MOOT-${++orders}`, requestId: randomUUID() };
  const body: Json = sampleBody(spec, profile as Profile, settings, op, fresh, fields);
  body.merchant_id = gw.config.merchants[0]!.merchantId;
  body.account_id = account.accountId;
  const signature = sign(profile.signature, 'request', op, body, account.secret!);
  if (signature !== undefined) body.encryption_data = signature;
  const r = await fetch(`${gw.url}${spec.operations.get(op)!.path}`, {
    method: 'POST',
    headers: { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: encoding === 'json' ? JSON.stringify(body) : encodeForm(body),
  });
  return { body, status: r.status, text: await r.text() };
}

/** What the answer to a signed request of the spec's example body (fields overridden) says, ids left out. */
async function answer(...request: Parameters<typeof send>): Promise<string> {
  const { status, text } = await send(...request);
  const said = [
    ...text.matchAll(
      /"?(return_status|return_message|order_status|query_result|capture_status|error_message)"?\s*[:=>]\s*"?([^"<,&]*)/g,
    ),
  ]
    .map((m) => `${m[1]}=${m[2]}`)
    .concat([...text.matchAll(/name="([^"]+)"/g)].map((m) => `input ${m[1]}`));
  return `${status} ${said.join(' ')}`;
}

/** A direct payment of 10.00 USD made under a profile: the batch item naming it (amount overridable). */
async function paidItem(gw: RunningGateway, profile: Json, amount = '10.00'): Promise<Json> {
  const { body, text } = await send(gw, profile, 'authoriseDirect', { amount: '10.00', currency: 'USD' });
  const id = /transaction_id"?\s*[:=>]\s*"?([A-Za-z0-9-]+)/.exec(text)?.[1];
  expect(id, text).toBeDefined();
  return { transaction_id: id, order_no: body.order_no, currency: 'USD', amount };
}

/**
 * The payment notification of a direct payment, as the operations whose signed-answer list verifies it: the body
 * carries fresh ids each time, so what is compared is how it is signed, not its bytes.
 */
async function notified(gw: RunningGateway, profile: Json): Promise<string> {
  const got: string[] = [];
  const receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      got.push(text);
      res.writeHead(200).end('OK');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
    await send(gw, profile, 'authoriseDirect', { notify_url: url });
    for (let i = 0; i < 200 && !got.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(got.length).toBeGreaterThan(0);
    const body: Json = got[0]!.startsWith('{') ? JSON.parse(got[0]!) : Object.fromEntries(new URLSearchParams(got[0]!));
    if (typeof body.encryption_data !== 'string') return 'unsigned';
    const secret = gw.config.merchants[0]!.accounts[0]!.secret!;
    const ops = [...spec.operations.keys()].filter((op) => verify(profile.signature, 'response', op, body, secret));
    return `verifies as ${ops.join(', ') || 'no answer'}`;
  } finally {
    receiver.close();
  }
}

type Probe = (gw: RunningGateway, p: Json) => Promise<string>;

/** The answers to `probe` under a truth and under it with `change` made. */
async function answers(truth: Json, change: (p: Json) => void, probe: Probe) {
  const variant = structuredClone(truth);
  change(variant);
  const [a, b] = [await serve(truth), await serve(variant)];
  return { truth: await probe(a, truth), variant: await probe(b, variant) };
}

/**
 * `change` alters no answer under `moot` (a truth the rule's condition holds for) and alters one under `told` (a truth
 * it fails for): the probe can tell the leaf where it is read. Returns the moot truth's answer.
 */
async function mootUnlessRead(change: (p: Json) => void, probe: Probe, moot: Json, told: Json): Promise<string> {
  const same = await answers(moot, change, probe);
  expect(same.variant).toEqual(same.truth);
  const read = await answers(told, change, probe);
  expect(read.variant).not.toEqual(read.truth);
  return same.truth;
}

const variantOf = (change: (p: Json) => void): Json => {
  const p = structuredClone(reference);
  change(p);
  return p;
};

describe('the moot leaves of the neighbourhood proof', () => {
  it('every rule names the leaves it makes moot and why', () => {
    expect(new Set(MOOT_RULES.map((r) => r.id)).size).toBe(MOOT_RULES.length);
    for (const r of MOOT_RULES) expect(r.why.length).toBeGreaterThan(40);
    const both = variantOf((p) => (p.requestMedia.acceptOther = true));
    expect(mootRule(both, 'requestMedia.types.capture')?.id).toBe('mediaTypesWhenBothAccepted');
    expect(
      mootRule(
        variantOf((p) => (p.requestMedia.acceptOther = false)),
        'requestMedia.types.capture',
      ),
    ).toBeUndefined();
    const none = variantOf((p) => (p.review.triggers = null));
    expect(mootRule(none, 'statusValues.order_status.pendingReview')?.id).toBe('heldStateWithoutTriggers');
  });

  it('requestMedia.types when both media are accepted', async () => {
    const capture: Probe = async (gw, p) =>
      `${await answer(gw, p, 'capture', {}, 'json')} | ${await answer(gw, p, 'capture', {}, 'form')}`;
    const toForm = (p: Json) => {
      for (const op of Object.keys(p.requestMedia.types)) p.requestMedia.types[op] = 'form';
    };
    await mootUnlessRead(
      toForm,
      capture,
      variantOf((p) => (p.requestMedia.acceptOther = true)),
      variantOf((p) => (p.requestMedia.acceptOther = false)),
    );
  });

  it('the kind of a request lacking a header when no header is required', async () => {
    await mootUnlessRead(
      (p) => (p.requestHeaders.onMissing = 'invalidInput'),
      (gw, p) => answer(gw, p, 'capture'),
      variantOf((p) => (p.requestHeaders.headers = {})),
      variantOf((p) => (p.requestHeaders.headers = { 'X-Merchant': '{request.merchant_id}' })),
    );
  });

  it('the held state when no trigger holds a payment', async () => {
    await mootUnlessRead(
      (p) => {
        p.statusValues.order_status.pendingReview = '77';
        p.transitions.afterAuthorise.pendingReview = 'authorised';
      },
      (gw, p) => answer(gw, p, 'authoriseDirect', { shopper_email: 'a@review.example' }),
      variantOf((p) => (p.review.triggers = null)),
      variantOf((p) => (p.review.triggers = { amountAtLeast: '5000.00', shopperEmailDomains: ['review.example'] })),
    );
  });

  it('the name of the anti-fraud cookie field', async () => {
    const checkout: Probe = (gw, p) => answer(gw, p, 'checkout', { antifraud_token_cookie: 'c1', fraud_cookie: 'c2' });
    const same = await answers(
      structuredClone(reference),
      (p) => (p.fields.antifraudTokenCookie = 'fraud_cookie'),
      checkout,
    );
    expect(same.variant).toEqual(same.truth);
    // Both names are echoed as inputs, whichever the profile names: the name changes nothing the gateway answers.
    expect(same.truth).toMatch(
      /input antifraud_token_cookie.*input fraud_cookie|input fraud_cookie.*input antifraud_token_cookie/,
    );
  });

  it('the query item of a value matching nothing when such values are not answered as items', async () => {
    await mootUnlessRead(
      (p) => (p.statusValues.query_result.notFound = '77'),
      (gw, p) => answer(gw, p, 'retrievalTrans', { transaction_id: 'T9000000000001' }),
      variantOf((p) => (p.selection.retrievalTrans.unmatched = 'skip')),
      variantOf((p) => (p.selection.retrievalTrans.unmatched = 'failureItem')),
    );
  });

  it('the envelope failure value when failed items leave the envelope a success', async () => {
    const unknownItem = { transaction_id: 'T9000000000001', order_no: 'X', currency: 'USD', amount: '1.00' };
    await mootUnlessRead(
      (p) => (p.statusValues.return_status.failure = '77'),
      (gw, p) => answer(gw, p, 'capture', { capture_orders: [unknownItem] }),
      variantOf((p) => (p.batch.envelopeOnItemFailure = 'success')),
      variantOf((p) => (p.batch.envelopeOnItemFailure = 'failure')),
    );
  });
  it('a per-item failure no check or transition answers', async () => {
    const changed = (p: Json) => (p.batch.itemFailures.notUnderReview = { code: 'R77', message: 'Never under review' });
    const review: Probe = async (gw, p) =>
      answer(gw, p, 'review', { review_orders: [{ ...(await paidItem(gw, p)), review_flag: p.review.approve.flag }] });
    const nowhere = variantOf((p) => (p.transitions.review.otherRefusal = 'invalidState'));
    expect(mootRule(nowhere, 'batch.itemFailures.notUnderReview.code')?.id).toBe('itemFailureNeverAnswered');
    expect(mootRule(reference, 'batch.itemFailures.notUnderReview.code')).toBeUndefined();
    await mootUnlessRead(changed, review, nowhere, structuredClone(reference));
    // The capture's bound answers overCapture only where the capture takes the operation's amount.
    const over: Probe = async (gw, p) => answer(gw, p, 'capture', { capture_orders: [await paidItem(gw, p, '20.00')] });
    await mootUnlessRead(
      (p) => (p.batch.itemFailures.overCapture = { code: 'C77', message: 'Over' }),
      over,
      variantOf((p) => (p.transitions.capture.itemAmount = 'original')),
      structuredClone(reference),
    );
  });

  it("a kind's HTTP status where every operation raising it refuses in an HTTP 200 body", async () => {
    const inBody = (p: Json) => {
      for (const op of ['retrievalTrans', 'capture', 'review', 'cancel', 'refund', 'retrievalRefund'])
        p.errors.refusalForms[op] = ['statusInBody'];
    };
    const moot = variantOf(inBody);
    expect(mootRule(moot, 'errors.kinds.overLimit.status')?.id).toBe('kindStatusNeverAnswered');
    expect(mootRule(reference, 'errors.kinds.overLimit.status')).toBeUndefined();
    const restricted = (p: Json) => (p.addressRestriction.operations = ['retrievalTrans']);
    expect(
      mootRule(
        variantOf((p) => {
          inBody(p);
          restricted(p);
        }),
        'errors.kinds.refusedAddress.status',
      )?.id,
    ).toBe('kindStatusNeverAnswered');
    expect(mootRule(variantOf(restricted), 'errors.kinds.refusedAddress.status')).toBeUndefined();
    const limit = spec.operations.get('capture')!.batch!.maxItems;
    const tooMany = { transaction_id: 'T9000000000001', order_no: 'X', currency: 'USD', amount: '1.00' };
    await mootUnlessRead(
      (p) => (p.errors.kinds.overLimit.status = 422),
      (gw, p) => answer(gw, p, 'capture', { capture_orders: Array.from({ length: limit + 1 }, () => tooMany) }),
      moot,
      structuredClone(reference),
    );
  });
  it("the operation a notification's body comes from where no operation's list signs it", async () => {
    const unsigned = variantOf((p) => (p.notifications.signature = 'none'));
    expect(mootRule(unsigned, 'notifications.kinds.payment.bodyFrom')?.id).toBe('bodyFromWithoutOperationSignature');
    expect(mootRule(reference, 'notifications.kinds.payment.bodyFrom')).toBeUndefined();
    const said = await mootUnlessRead(
      (p) => (p.notifications.kinds.payment.bodyFrom = 'capture'),
      notified,
      unsigned,
      structuredClone(reference),
    );
    expect(said).toBe('unsigned');
  });
});
