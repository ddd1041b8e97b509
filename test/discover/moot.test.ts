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

/** Answers of the requests under a truth and under it with `change` made. */
async function pair(truth: Json, change: (p: Json) => void, probe: (gw: RunningGateway, p: Json) => Promise<string[]>) {
  const variant = structuredClone(truth);
  change(variant);
  const [a, b] = [await serve(truth), await serve(variant)];
  return { truth: await probe(a, truth), variant: await probe(b, variant) };
}

const held = (p: Json) => {
  p.statusValues.order_status.pendingReview = '77';
  p.transitions.afterAuthorise.pendingReview = 'authorised';
};
const payments = (gw: RunningGateway, p: Json) =>
  Promise.all([answer(gw, p, 'authoriseDirect', { shopper_email: 'a@review.example' })]);

describe('the moot leaves of the neighbourhood proof', () => {
  it('every rule names the leaves it makes moot and why', () => {
    expect(new Set(MOOT_RULES.map((r) => r.id)).size).toBe(MOOT_RULES.length);
    for (const r of MOOT_RULES) expect(r.why.length).toBeGreaterThan(40);
    expect(mootRule(reference, 'requestMedia.types.capture')?.id).toBe('mediaTypesWhenBothAccepted');
    expect(
      mootRule(
        { ...reference, requestMedia: { ...reference.requestMedia, acceptOther: false } },
        'requestMedia.types.capture',
      ),
    ).toBeUndefined();
  });

  it('requestMedia.types when both media are accepted', async () => {
    const both = (gw: RunningGateway, p: Json) =>
      Promise.all([answer(gw, p, 'capture', {}, 'json'), answer(gw, p, 'capture', {}, 'form')]);
    const toForm = (p: Json) => {
      for (const op of Object.keys(p.requestMedia.types)) p.requestMedia.types[op] = 'form';
    };
    const truth = { ...structuredClone(reference), requestMedia: { ...reference.requestMedia, acceptOther: true } };
    const moot = await pair(truth, toForm, both);
    expect(moot.variant).toEqual(moot.truth);
    const strict = { ...structuredClone(reference), requestMedia: { ...reference.requestMedia, acceptOther: false } };
    const told = await pair(strict, toForm, both);
    expect(told.variant).not.toEqual(told.truth);
  });

  it('the kind of a request lacking a header when no header is required', async () => {
    const capture = (gw: RunningGateway, p: Json) => Promise.all([answer(gw, p, 'capture')]);
    const kind = (p: Json) => (p.requestHeaders.onMissing = 'invalidInput');
    const moot = await pair(structuredClone(reference), kind, capture);
    expect(moot.variant).toEqual(moot.truth);
    const required = structuredClone(reference);
    required.requestHeaders.headers = { 'X-Merchant': '{request.merchant_id}' };
    const told = await pair(required, kind, capture);
    expect(told.variant).not.toEqual(told.truth);
  });

  it('the held state when no trigger holds a payment', async () => {
    const none = { ...structuredClone(reference), review: { ...reference.review, triggers: null } };
    expect(mootRule(none, 'statusValues.order_status.pendingReview')?.id).toBe('heldStateWithoutTriggers');
    const moot = await pair(none, held, payments);
    expect(moot.variant).toEqual(moot.truth);
    const told = await pair(structuredClone(reference), held, payments);
    expect(told.variant).not.toEqual(told.truth);
  });

  it('the name of the anti-fraud cookie field', async () => {
    const checkout = (gw: RunningGateway, p: Json) =>
      Promise.all([answer(gw, p, 'checkout', { antifraud_token_cookie: 'c1', fraud_cookie: 'c2' })]);
    const moot = await pair(
      structuredClone(reference),
      (p) => (p.fields.antifraudTokenCookie = 'fraud_cookie'),
      checkout,
    );
    expect(moot.variant).toEqual(moot.truth);
    expect(moot.truth[0]).toMatch(
      /input antifraud_token_cookie.*input fraud_cookie|input fraud_cookie.*input antifraud_token_cookie/,
    );
  });

  it('the query item of a value matching nothing when such values are not answered as items', async () => {
    const query = (gw: RunningGateway, p: Json) =>
      Promise.all([answer(gw, p, 'retrievalTrans', { transaction_id: 'T9000000000001' })]);
    const notFound = (p: Json) => (p.statusValues.query_result.notFound = '77');
    const skip = structuredClone(reference);
    skip.selection.retrievalTrans.unmatched = 'skip';
    const moot = await pair(skip, notFound, query);
    expect(moot.variant).toEqual(moot.truth);
    const told = await pair(structuredClone(reference), notFound, query);
    expect(told.variant).not.toEqual(told.truth);
  });

  it('the envelope failure value when failed items leave the envelope a success', async () => {
    const capture = (gw: RunningGateway, p: Json) =>
      Promise.all([
        answer(gw, p, 'capture', {
          capture_orders: [{ transaction_id: 'T9000000000001', order_no: 'X', currency: 'USD', amount: '1.00' }],
        }),
      ]);
    const failure = (p: Json) => (p.statusValues.return_status.failure = '77');
    const success = structuredClone(reference);
    success.batch.envelopeOnItemFailure = 'success';
    const moot = await pair(success, failure, capture);
    expect(moot.variant).toEqual(moot.truth);
    const failing = structuredClone(reference);
    failing.batch.envelopeOnItemFailure = 'failure';
    const told = await pair(failing, failure, capture);
    expect(told.variant).not.toEqual(told.truth);
  });
});
