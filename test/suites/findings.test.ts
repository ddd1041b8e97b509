/** The finding builder, the one schema-violation adapter and the preconditions. */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../core/model.js';
import { FINDING_CODES } from '../../core/types/finding-codes.js';
import {
  type Report,
  defineCheck,
  makeFinding,
  quoted,
  onlyOnSuccess,
  onlyWhen,
  onlyWithSteps,
  violationFindings,
} from '../../suites/findings.js';
import { config, context, exchange, happyObservation, observation, spec } from './fixtures.js';

const ctx = context();

function collect(fn: (report: Report) => void): Finding[] {
  const out: Finding[] = [];
  fn((input) => out.push(makeFinding(ctx, 'someCheck', 'capture', input)));
  return out;
}

describe('finding codes', () => {
  it('are UPPER_SNAKE with a fixed, distinct title each', () => {
    for (const [code, title] of Object.entries(FINDING_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(title.length).toBeGreaterThan(5);
    }
    expect(new Set(Object.values(FINDING_CODES)).size).toBe(Object.keys(FINDING_CODES).length);
  });
});

describe('makeFinding', () => {
  const x = exchange('capture', { status: 500, bodyText: 'boom' });

  it('writes "expected … / received …", the fixed title, the location and the exchange evidence', () => {
    const f = makeFinding(
      ctx,
      'emptyBatchNoServerError',
      'capture',
      { code: 'SERVER_ERROR', requirement: 'PAGI-ERR-002', expected: 'below 500', received: 'HTTP 500', pointer: '/x' },
      x,
    );
    expect(f).toMatchObject({
      checkId: 'emptyBatchNoServerError',
      requirementIds: ['PAGI-ERR-002'],
      code: 'SERVER_ERROR',
      title: FINDING_CODES.SERVER_ERROR,
      severity: 'expected',
      message: 'expected below 500 / received HTTP 500',
      location: { operation: 'capture', pointer: '/x', exchangeId: x.id },
    });
    expect(f.evidence).toBe(x.evidence);
  });

  it('masks a received value equal to a short card value the exchange sent (an echoed security code), nothing else', () => {
    const sent = exchange('authoriseDirect', { status: 200, bodyText: '<respon/>' });
    Object.defineProperty(sent, 'sentCardEchoes', { value: ['0417', '12'], enumerable: false });
    const echo = makeFinding(
      ctx,
      'c',
      'authoriseDirect',
      { code: 'ECHO_MISMATCH', requirement: 'PAGI-PAY-002', expected: 'the note sent', received: quoted('0417') },
      sent,
    );
    expect(echo.received).toBe('***');
    expect(echo.message).not.toContain('0417');
    const other = makeFinding(
      ctx,
      'c',
      'authoriseDirect',
      { code: 'ECHO_MISMATCH', requirement: 'PAGI-PAY-002', expected: 'the note sent', received: quoted('120') },
      sent,
    );
    expect(other.received).toBe('120');
  });

  it('takes the strongest level among its requirements, or info when told', () => {
    expect(
      makeFinding(ctx, 'c', 'capture', {
        code: 'HTTP_STATUS',
        requirement: ['PAGI-ERR-004', 'PAGI-GEN-007'],
        expected: 'a',
        received: 'b',
      }).severity,
    ).toBe('must');
    expect(
      makeFinding(ctx, 'c', 'capture', {
        code: 'UNKNOWN_FIELD',
        requirement: 'PAGI-BAT-001',
        severity: 'info',
        expected: 'a',
        received: 'b',
      }).severity,
    ).toBe('info');
  });

  it('keeps expected and received as data, the message derived from them, and masks received values', () => {
    const f = makeFinding(ctx, 'c', 'capture', {
      code: 'ITEM_STATUS',
      requirement: 'PAGI-BAT-010',
      expected: quoted(2, 'status '),
      received: quoted({ card: `${config.cards.approve}`, n: 4111111111111111 }, 'success '),
    });
    expect(f).toMatchObject({ expected: 2, received: { card: '411111******1111', n: '411111******1111' } });
    expect(f.message).toBe('expected status 2 / received success {"card":"411111******1111","n":411111******1111}');
    expect(JSON.stringify(f)).not.toContain(config.cards.approve);
    expect(
      makeFinding(ctx, 'c', 'capture', {
        code: 'ITEM_STATUS',
        requirement: 'PAGI-BAT-010',
        expected: 'words',
        received: quoted(undefined),
      }),
    ).toMatchObject({
      expected: 'words',
      received: null,
      message: 'expected words / received nothing',
    });
  });

  it('points at every exchange it rests on, in the order sent, each once', () => {
    const y = exchange('retrievalTrans', { status: 200, json: {} });
    const f = makeFinding(
      ctx,
      'c',
      'capture',
      { code: 'RECORD_MISMATCH', requirement: 'PAGI-BAT-010', expected: 'a', received: 'b', also: [y, undefined, x] },
      x,
    );
    expect(f.location.exchangeId).toBe(x.id);
    expect(f.exchanges).toEqual([
      { exchangeId: x.id, evidence: x.evidence },
      { exchangeId: y.id, evidence: y.evidence },
    ]);
    expect(
      makeFinding(
        ctx,
        'c',
        'capture',
        { code: 'RECORD_MISMATCH', requirement: 'PAGI-BAT-010', expected: 'a', received: 'b', also: [x] },
        x,
      ).exchanges,
    ).toBeUndefined();
  });

  it('masks card numbers in what it quotes', () => {
    const f = makeFinding(ctx, 'c', 'authoriseDirect', {
      code: 'FULL_CARD_NUMBER',
      requirement: 'PAGI-INV-010',
      expected: 'none',
      received: `card ${config.cards.approve} and 5555555555554444`,
    });
    expect(f.message).not.toContain(config.cards.approve);
    expect(f.message).not.toContain('5555555555554444');
    expect(f.message).toContain('411111******1111');
  });
});

describe('violationFindings (the one adapter)', () => {
  const response = happyObservation('capture').main;
  const instance = structuredClone((response.response!.decoded as { value: Record<string, any> }).value);
  delete instance.return_status;
  instance.capture_orders[0].amount = '10.3';
  instance.capture_orders[1].currency = 'eur';
  const schemaId = spec.operations.get('capture')!.responseSchemaId;
  const violations = spec.validate(schemaId, instance);
  const run = (kind: 'structure' | 'format' | 'all') =>
    collect((report) =>
      violationFindings({
        ctx,
        report,
        exchange: response,
        instance,
        violations,
        fallbackRequirement: 'PAGI-BAT-001',
        kind,
      }),
    );

  it('reports each failed constraint at the level of the requirement it carries', () => {
    const all = run('all');
    const byPointer = Object.fromEntries(all.map((f) => [f.location.pointer, f]));
    expect(byPointer['/return_status']).toMatchObject({
      code: 'SCHEMA_VIOLATION',
      requirementIds: ['PAGI-BAT-001'],
      severity: 'must',
    });
    expect(byPointer['/capture_orders/0/amount']).toMatchObject({
      code: 'FIELD_FORMAT',
      requirementIds: ['PAGI-FMT-001'],
      severity: 'must',
    });
    expect(byPointer['/capture_orders/1/currency']).toMatchObject({
      code: 'FIELD_FORMAT',
      requirementIds: ['PAGI-FMT-004'],
      severity: 'expected',
    });
    expect(byPointer['/capture_orders/0/amount']!.message).toBe(
      'expected a value of the form ^-?[0-9]+\\.[0-9]{2}$ / received "10.3"',
    );
    expect(byPointer['/capture_orders/0/amount']).toMatchObject({
      keyword: 'pattern',
      params: { pattern: '^-?[0-9]+\\.[0-9]{2}$' },
      expected: 'a value of the form ^-?[0-9]+\\.[0-9]{2}$',
      received: '10.3',
    });
    expect(byPointer['/capture_orders/0/amount']!.schemaPath).toMatch(/pattern$/);
    expect(byPointer['/return_status']).toMatchObject({
      keyword: 'required',
      params: { missingProperty: 'return_status' },
      expected: 'field return_status',
      received: 'no such field',
    });
  });

  it('splits structure from format, and collapses duplicates', () => {
    expect(run('structure').map((f) => f.code)).toEqual(['SCHEMA_VIOLATION']);
    expect(
      run('format')
        .map((f) => f.requirementIds[0])
        .sort(),
    ).toEqual(['PAGI-FMT-001', 'PAGI-FMT-004']);
    const twice = collect((report) =>
      violationFindings({
        ctx,
        report,
        exchange: response,
        instance,
        violations: [...violations, ...violations],
        fallbackRequirement: 'PAGI-BAT-001',
        kind: 'all',
      }),
    );
    expect(twice).toHaveLength(run('all').length);
  });

  it('uses the fallback requirement for a constraint that carries none, and drops combinator bookkeeping', () => {
    const out = collect((report) =>
      violationFindings({
        ctx,
        report,
        exchange: response,
        instance: { a: 1 },
        violations: [
          {
            requirementId: undefined,
            keyword: 'type',
            instancePath: '/a',
            schemaPath: '#/x',
            message: 'must be string',
            params: { type: 'string' },
          },
          {
            requirementId: 'PAGI-GEN-006',
            keyword: 'anyOf',
            instancePath: '',
            schemaPath: '#/anyOf',
            message: 'must match a schema in anyOf',
            params: {},
          },
        ],
        fallbackRequirement: 'PAGI-BAT-001',
        kind: 'all',
      }),
    );
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      requirementIds: ['PAGI-BAT-001'],
      message: 'expected a string / received a number 1',
    });
  });
});

describe('checks and preconditions', () => {
  const twoFindings = defineCheck<string>({
    id: 'twoThings',
    family: 'status',
    probe: 'happy',
    operations: ['capture'],
    requirements: ['PAGI-GEN-007'],
    description: 'test',
    verify(_o, _ctx, report) {
      report({ code: 'HTTP_STATUS', requirement: 'PAGI-GEN-007', expected: 'a', received: 'b' });
      report({ code: 'HTTP_STATUS', requirement: 'PAGI-GEN-007', expected: 'c', received: 'd' });
    },
  });
  const ok = happyObservation('capture');
  const refused = observation('happy', 'capture', exchange('capture', { status: 400, json: {} }));

  it('collect every finding of an observation, never only the first', () => {
    expect(twoFindings.run(ok, ctx)).toHaveLength(2);
  });

  it('report() rejects a requirement id the check does not list (a kit error)', () => {
    const foreign = defineCheck({
      ...twoFindings,
      id: 'foreign',
      verify: (_o, _ctx, report) =>
        report({ code: 'HTTP_STATUS', requirement: ['PAGI-GEN-007', 'PAGI-INV-010'], expected: 'a', received: 'b' }),
    });
    expect(() => foreign.run(ok, ctx)).toThrow(
      'check foreign reported requirement PAGI-INV-010, which is not among its requirements',
    );
  });

  it('onlyOnSuccess: not applicable, with the reason, when the answer is not 2xx', () => {
    const wrapped = onlyOnSuccess(twoFindings);
    expect(wrapped.run(refused, ctx)).toEqual({ notApplicable: expect.stringContaining('HTTP 400') });
    expect(wrapped.run(ok, ctx)).toHaveLength(2);
  });

  it('onlyWhen and onlyWithSteps: not applicable with their reasons, never a silent pass', () => {
    expect(onlyWhen(() => false, 'because')(twoFindings).run(ok, ctx)).toEqual({ notApplicable: 'because' });
    const stopped = { ...ok, facts: { stoppedBecause: 'capture failed' } };
    expect(onlyWithSteps('refund1')(twoFindings).run(stopped, ctx)).toEqual({
      notApplicable: 'the scenario stopped before step refund1 (capture failed)',
    });
  });

  it('keep the check metadata when wrapped', () => {
    const wrapped = onlyOnSuccess(twoFindings);
    expect({ ...wrapped, run: undefined }).toEqual({ ...twoFindings, run: undefined });
  });
});
