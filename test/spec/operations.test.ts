/**
 * The sets of operations (core/spec/operations.ts) come from the spec's entries: what the kit's spec puts in each set,
 * a requirement's scope, the array a selection answers in and the field dating its records, and a copy of the spec
 * with an operation added under a new path, which every set its entries name takes in with no code edit.
 */
import { describe, expect, it } from 'vitest';
import { registryProblems } from '../../engine/registry.js';
import type { Check, OperationKey } from '../../core/model.js';
import { kitSpec, loadSpec } from '../../core/spec/load.js';
import {
  covers,
  OPERATION_SETS,
  operationSet,
  operationsIn,
  recordSource,
  selectionDateField,
  selectionResults,
  unknownOperations,
} from '../../core/spec/operations.js';
import { CHECKS, PROBES } from '../../suites/registry.js';
import fs from 'node:fs';
import path from 'node:path';
import { specWithCancelSubscription, specWithCopiedOperation } from '../support/added-operation.js';

const spec = kitSpec();

describe('the operation sets of the kit spec', () => {
  it.each([
    ['batch', ['capture', 'review', 'cancel', 'refund']],
    ['selecting', ['retrievalTrans', 'retrievalRefund']],
    ['addressRestricted', ['retrievalTrans']],
    ['batchResultSearch', ['retrievalRefund']],
    ['envelope', ['retrievalTrans', 'capture', 'review', 'cancel', 'refund', 'retrievalRefund']],
  ] as const)('%s holds %j', (name, expected) => {
    expect(operationSet(spec, name)).toEqual(expected);
  });

  it('all holds every operation of the spec in spec order, and every set is part of it', () => {
    expect(operationSet(spec, 'all')).toEqual([...spec.operations.keys()]);
    for (const name of OPERATION_SETS)
      for (const op of operationSet(spec, name)) expect(operationSet(spec, 'all')).toContain(op);
  });

  it('a page read into a form model is no field response; every other operation is', () => {
    expect(operationSet(spec, 'all').filter((op) => !operationSet(spec, 'fieldResponse').includes(op))).toEqual([
      'checkout',
    ]);
  });
});

describe('a requirement scope', () => {
  it("covers the operations the requirement's catalogue entry names, in spec order", () => {
    expect(operationsIn(spec, { requirement: 'PAGI-FMT-013' })).toEqual(['refund', 'retrievalRefund']);
    expect(spec.requirements.get('PAGI-RFS-003')!.operations).toEqual(['retrievalRefund', 'refund']);
    expect(operationsIn(spec, { requirement: 'PAGI-RFS-003' })).toEqual(['refund', 'retrievalRefund']);
  });

  it('within a set keeps only that set’s operations', () => {
    expect(operationsIn(spec, { requirement: 'PAGI-RFS-003', within: 'selecting' })).toEqual(['retrievalRefund']);
    expect(covers(spec, { requirement: 'PAGI-RFS-003', within: 'selecting' }, 'refund')).toBe(false);
  });

  it('naming a requirement the catalogue lacks is an error, never an empty scope', () => {
    expect(() => operationsIn(spec, { requirement: 'PAGI-XXX-999' })).toThrow(/no requirement PAGI-XXX-999/);
    expect(unknownOperations(spec, { requirement: 'PAGI-FMT-013' })).toEqual([]);
  });

  it('is a registry problem when the check does not trace to it, or it names no requirement', () => {
    const base = CHECKS.find((c) => c.id === 'refundReferenceIdExtendsTransactionId')!;
    const untraced: Check = { ...base, id: 'untracedScope', operations: { requirement: 'PAGI-RFS-003' } };
    const unknown: Check = { ...base, id: 'unknownScope', operations: { requirement: 'PAGI-XXX-999' } };
    expect(registryProblems({ CHECKS: [base, untraced, unknown], PROBES }, spec)).toEqual([
      'check untracedScope takes its operations from PAGI-RFS-003, a requirement it does not trace to',
      'check unknownScope takes its operations from unknown requirement PAGI-XXX-999',
    ]);
  });
});

describe('what a selection answers', () => {
  it('its records in the one array of its response, dated by the member in the document’s date form', () => {
    expect(selectionResults(spec, 'retrievalTrans')).toBe('orders_list');
    expect(selectionResults(spec, 'retrievalRefund')).toBe('refund_orders');
    expect(selectionResults(spec, 'capture')).toBeUndefined();
    expect(selectionDateField(spec, 'retrievalTrans')).toBe('transaction_date');
    expect(selectionDateField(spec, 'retrievalRefund')).toBe('refund_date');
  });

  it('the refund search returns the refund batch’s results; the query returns payments', () => {
    expect(recordSource(spec, 'retrievalRefund')).toBe('refund');
    expect(recordSource(spec, 'retrievalTrans')).toBeUndefined();
  });
});

describe('a copy of the spec with the refund search copied under a new path', () => {
  it('puts the copy in every set the original is in, with the same answers, and no code names it', () => {
    const copy = loadSpec(specWithCopiedOperation('/v1/retrievalRefund', '/v1/searchRefunds', 'searchRefunds'));
    const added = 'searchRefunds' as OperationKey;
    for (const name of OPERATION_SETS)
      expect(operationSet(copy, name).includes(added), name).toBe(operationSet(copy, name).includes('retrievalRefund'));
    expect(selectionResults(copy, added)).toBe('refund_orders');
    expect(selectionDateField(copy, added)).toBe('refund_date');
    expect(recordSource(copy, added)).toBe('refund');
  });
});

describe('the requirement catalogue of a copy with an operation added', () => {
  it('may tie a requirement to the added operation; a key the spec lacks is refused as the schema words it', () => {
    const root = specWithCancelSubscription();
    const file = path.join(root, 'spec', 'requirements.yaml');
    const text = fs.readFileSync(file, 'utf8');
    const tied = text.replace(/( {2}- id: PAGI-GEN-001\n(?: {4}.*\n)*? {4}operations: \[)/, '$1cancelSubscription, ');
    expect(tied).not.toBe(text);
    fs.writeFileSync(file, tied);
    const spec = loadSpec(root);
    expect(spec.requirements.get('PAGI-GEN-001')!.operations).toContain('cancelSubscription');
    expect(operationsIn(spec, { requirement: 'PAGI-GEN-001' })).toContain('cancelSubscription');

    fs.writeFileSync(file, tied.replace('cancelSubscription, ', 'cancelSubscriptions, '));
    expect(() => loadSpec(root)).toThrow(
      /\/requirements\/0\/operations\/0: must be one of authoriseDirect, .*cancelSubscription/,
    );
  });
});
