/**
 * `responseFields` decided offline over the working answers of a run (discover/discoverers/response-fields.ts): a
 * listed field is omitted only when no working answer held it, and stated only when every operation answering fields
 * did its work; an echo that came back otherwise than sent is stated as the one normalisation explaining it, an echo
 * none (or two) explain leaves the point unstated, and a request repeating an idempotency key is no echo.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange, OperationKey } from '../../core/model.js';
import { loadProfile } from '../../core/profile/load.js';
import { operationExamples } from '../../core/spec/examples.js';
import { kitSpec } from '../../core/spec/load.js';
import { operationSet } from '../../core/spec/operations.js';
import { responseFieldsDiscoverer } from '../../discover/discoverers/response-fields.js';
import { Draft } from '../../discover/draft.js';
import type { Session } from '../../discover/session.js';

type Body = Record<string, unknown>;
const spec = kitSpec();
const XML_ANSWERS: readonly OperationKey[] = ['authoriseDirect', 'authoriseApm'];

function exchange(op: OperationKey, sent: Body, answer: Body): Exchange {
  const xml = XML_ANSWERS.includes(op);
  return {
    request: {
      method: 'POST',
      url: `http://gw.test${spec.operations.get(op)!.path}`,
      headers: {},
      bodyText: JSON.stringify(sent),
      encoding: 'json',
      body: sent,
    },
    response: {
      status: 200,
      headers: { 'content-type': xml ? 'application/xml' : 'application/json' },
      bodyText: '',
      decoded: xml ? { kind: 'xml', value: answer, root: 'respon' } : { kind: 'json', value: answer },
    },
  } as unknown as Exchange;
}

/** A working answer of each operation: the spec's own response example (the APM's the one with an issuer URL). */
function exampleAnswers(): { operation: OperationKey; exchange: Exchange }[] {
  return operationSet(spec, 'fieldResponse').map((op) => {
    const model = spec.operations.get(op)!;
    const answers = operationExamples(spec, model, 'response');
    const answer = answers.find((a) => op !== 'authoriseApm' || 'issuer_url' in a)!;
    return { operation: op, exchange: exchange(op, operationExamples(spec, model, 'request')[0] ?? {}, answer) };
  });
}

function session(answers: { operation: OperationKey; exchange: Exchange }[]): Session {
  const work = loadProfile('reference').profile;
  return { spec, work, draft: new Draft(), answers, evidence: () => 'evidence' } as unknown as Session;
}

async function decided(answers: { operation: OperationKey; exchange: Exchange }[]) {
  const s = session(answers);
  await responseFieldsDiscoverer.run(s, {} as never);
  const point = (p: string) => s.draft.all().find((x) => x.path === p);
  return { omitted: point('responseFields.omitted'), echo: point('responseFields.echoNormalised') };
}

const withoutField = (body: Body, list: string, field: string): Body => ({
  ...body,
  [list]: (body[list] as Body[]).map(({ [field]: _, ...rest }) => rest),
});

describe('responseFields.omitted', () => {
  it('is stated as the listed fields no working answer of an operation held, array levels left out', async () => {
    const answers = exampleAnswers();
    const capture = answers.find((a) => a.operation === 'capture')!;
    const body = capture.exchange.response!.decoded as { value: Body };
    const lacking = withoutField(body.value, 'capture_orders', 'amount');
    answers.push({ operation: 'capture', exchange: exchange('capture', {}, lacking) });
    const refund = answers.find((a) => a.operation === 'refund')!;
    const refundBody = (refund.exchange.response!.decoded as { value: Body }).value;
    refund.exchange = exchange('refund', {}, withoutField(refundBody, 'refund_orders', 'refund_reason'));
    const { omitted } = await decided(answers);
    expect(omitted?.unknown).toBeUndefined();
    // One capture answer holds the items' amount: not omitted; no refund answer holds refund_reason: omitted.
    expect(omitted?.value).toMatchObject({ refund: ['/refund_orders/refund_reason'] });
    expect(omitted?.value).not.toHaveProperty('capture');
  });

  it('is left unstated, naming the operation, when an operation never did its work', async () => {
    const answers = exampleAnswers().filter((a) => a.operation !== 'review');
    const { omitted } = await decided(answers);
    expect(omitted?.unknown).toMatch(/review never did its work/);
  });
});

describe('responseFields.echoNormalised', () => {
  const payout = () => {
    const model = spec.operations.get('payout')!;
    const sent = structuredClone(operationExamples(spec, model, 'request')[0]!);
    const answer = structuredClone(operationExamples(spec, model, 'response')[0]!);
    return { sent, answer };
  };
  const only = (...pairs: { sent: Body; answer: Body }[]) => [
    ...exampleAnswers().filter((a) => a.operation !== 'payout'),
    ...pairs.map((p) => ({ operation: 'payout' as const, exchange: exchange('payout', p.sent, p.answer) })),
  ];

  it('is stated empty when every echoed value came back as sent', async () => {
    const p = payout();
    for (const [k, v] of Object.entries(p.sent)) if (typeof v !== 'object' && k !== 'encryption_data') p.answer[k] = v;
    p.answer.beneficiary = structuredClone(p.sent.beneficiary);
    const { echo } = await decided(only(p));
    expect(echo?.unknown).toBeUndefined();
    expect(echo?.value).toEqual([]);
  });

  it('is stated as the one normalisation explaining a field echoed otherwise', async () => {
    const p = payout();
    p.sent.payment_amount = '1000';
    p.answer = { ...p.answer, ...structuredClone(p.sent), payment_amount: '1000.00' };
    const { echo } = await decided(only(p));
    expect(echo?.unknown).toBeUndefined();
    expect(echo?.value).toEqual([{ field: '/payment_amount', as: 'number' }]);
  });

  it('is left unstated when no normalisation, or more than one, explains an echo', async () => {
    const p = payout();
    p.answer = { ...p.answer, ...structuredClone(p.sent), reason: 'something else' };
    expect((await decided(only(p))).echo?.unknown).toMatch(/no normalisation/);
    const q = payout();
    q.sent.payment_amount = '1000';
    q.answer = { ...q.answer, ...structuredClone(q.sent), payment_amount: ' 1000' };
    expect((await decided(only(q))).echo?.unknown).toMatch(/as number or trimmed/);
  });

  it('reads no echo from a request repeating an idempotency key (answered with the first result)', async () => {
    const first = payout();
    first.answer = { ...first.answer, ...structuredClone(first.sent) };
    const again = payout();
    again.sent.reason = 'changed';
    again.answer = first.answer;
    const { echo } = await decided(only(first, again));
    expect(echo?.unknown).toBeUndefined();
    expect(echo?.value).toEqual([]);
  });
});
