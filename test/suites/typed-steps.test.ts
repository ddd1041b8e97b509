/**
 * Probes declare their steps as a typed record and checks read typed steps: a step a probe does not declare (a
 * renamed one) is a compile error on both sides. The `@ts-expect-error` lines below are checked by
 * `npm run typecheck`: should a wrong name stop being an error, the directive itself fails the type check.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../core/model.js';
import { defineCheck, onlyOnSuccess, onlyWhen, onlyWithSteps, wrap } from '../../suites/findings.js';
import { defineProbe } from '../../suites/probes/support.js';
import { PROBES } from '../../suites/registry.js';
import { paymentLifecycle, payoutLifecycle } from '../../suites/probes/lifecycle.js';

describe('typed steps', () => {
  it('a check reads only the steps its probe declares, in its body and in its preconditions', () => {
    const read: (Exchange | undefined)[] = [];
    const check = wrap(
      defineCheck({
        id: 'typedStepsExample',
        family: 'lifecycle',
        probe: paymentLifecycle,
        operations: ['capture'],
        requirements: ['PAGI-QRY-007'],
        description: 'reads typed steps',
        verify(o) {
          read.push(o.steps.queryAfterAuthorise);
          // @ts-expect-error a step the probe does not declare (here: misspelt) does not compile
          read.push(o.steps.queryAfterAuthorize);
        },
      }),
      onlyWithSteps('capture'),
      // @ts-expect-error a precondition naming an undeclared step does not compile
      onlyWithSteps('capturedAgain'),
      // @ts-expect-error nor does a predicate reading one
      onlyWhen((o) => o.steps.refund3 !== undefined, 'never'),
    );
    expect(check.probe).toBe('paymentLifecycle');
    // @ts-expect-error onlyOnSuccess of a step the probe does not declare does not compile
    onlyOnSuccess(defineCheck({ ...base, probe: payoutLifecycle, verify() {} }), 'second');
  });

  it('a probe records under a declared name (or an operation) only', () => {
    const probe = defineProbe(
      'typedStepsProbe',
      ['capture'],
      { first: 'the first request' },
      async (op, client, _ctx, steps) => {
        steps.add('first', await client.send(op, {}));
        // @ts-expect-error a name the probe does not declare does not compile
        steps.add('frist', await client.send(op, {}));
        return steps.add(op, await client.send(op, {}));
      },
    );
    expect(probe.steps).toEqual({ first: 'the first request' });
  });

  it('every probe of the table declares its steps, each with what it is', () => {
    for (const probe of PROBES) {
      expect(probe.steps, probe.id).toBeDefined();
      for (const [name, what] of Object.entries(probe.steps ?? {})) expect(what, `${probe.id}.${name}`).not.toBe('');
    }
  });
});

const base = {
  id: 'typedStepsBase',
  family: 'lifecycle',
  operations: ['payout'],
  requirements: ['PAGI-PO-007'],
  description: 'reads typed steps',
} as const;
