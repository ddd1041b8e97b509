/**
 * The moot leaves of the neighbourhood proof (test/support/moot.ts) are moot: the reference gateway serving a truth
 * and serving it with the leaf changed answers the same requests alike (status, refusal code, statuses, the checkout
 * page's inputs); and the same change where the rule's condition does not hold does change an answer, so each probe
 * can tell. The share of leaves stated over the leaves not moot rests on these rules (`combine` with one selecting
 * field rests on its reading of gateway/ops/selection.ts alone: no request gives two selectors to combine).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { OperationKey } from '../../core/model.js';
import { encodeForm } from '../../core/codecs/form.js';
import { sign } from '../../core/signing.js';
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

/** A signed request of the spec's example body (fields overridden), and what its answer says, ids left out. */
async function answer(
  gw: RunningGateway,
  profile: Json,
  op: OperationKey,
  fields: Json = {},
  encoding: 'json' | 'form' = 'json',
): Promise<string> {
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
  const text = await r.text();
  const said = [
    ...text.matchAll(
      /"?(return_status|return_message|order_status|query_result|capture_status)"?\s*[:=>]\s*"?([^"<,&]*)/g,
    ),
  ]
    .map((m) => `${m[1]}=${m[2]}`)
    .concat([...text.matchAll(/name="([^"]+)"/g)].map((m) => `input ${m[1]}`));
  return `${r.status} ${said.join(' ')}`;
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
});
