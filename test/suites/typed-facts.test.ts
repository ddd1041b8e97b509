/**
 * Probes set and checks read typed facts (`ObservationFacts`, named in suites/facts.ts): a fact no module declares
 * (a renamed one), or one of another type, is a compile error on both sides. The `@ts-expect-error` lines below are
 * checked by `npm run typecheck`: should a wrong name or type stop being an error, the directive itself fails it.
 */
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/model.js';
import type { FollowUp } from '../../suites/observe.js';
import { defineCheck } from '../../suites/findings.js';
import { wrongFormat } from '../../suites/probes/basic.js';
import { defineProbe } from '../../suites/probes/support.js';
import { exchange, observation } from './fixtures.js';

describe('typed facts', () => {
  it('a check reads a fact with its declared type, and no undeclared one', () => {
    const read: unknown[] = [];
    const check = defineCheck({
      id: 'typedFactsExample',
      family: 'status',
      probe: wrongFormat,
      operations: ['capture'],
      requirements: ['PAGI-ERR-002'],
      description: 'reads typed facts',
      verify(o) {
        const f: FollowUp | undefined = o.facts.followUp;
        const pointer: string | undefined = o.facts.mutated?.pointer;
        read.push(f?.kind, pointer);
        // @ts-expect-error a fact no module declares (here: misspelt) does not compile
        read.push(o.facts.folowUp);
        // @ts-expect-error a fact read as another type than its own does not compile
        const count: string | undefined = o.facts.count;
        read.push(count);
      },
    });
    const o: Observation = observation(
      'wrongFormat',
      'capture',
      exchange('capture'),
      {},
      {
        followUp: { kind: 'none', reason: 'no follow-up' },
        mutated: { pointer: '/currency', value: 'x' },
      },
    );
    expect(check.run(o, undefined as never)).toEqual([]);
    expect(read.slice(0, 2)).toEqual(['none', '/currency']);
  });

  it('a fact whose name the probe computes is read through its pattern, typed where the pattern is declared', () => {
    const o = observation(
      'deep',
      'capture',
      exchange('capture'),
      {},
      {
        'fail:x:followUp': { kind: 'absent', orderNo: 'O1' },
        'step:other': 3,
      },
    );
    const step: string = 'fail:x';
    const f: FollowUp | undefined = o.facts[`${step}:followUp`];
    const name: `${string}:${string}` = 'step:other';
    // @ts-expect-error another computed name reads as unknown
    const other: number = o.facts[name];
    expect([f?.kind, other]).toEqual(['absent', 3]);
  });

  it('a probe sets a declared fact with its type only', () => {
    const probe = defineProbe('typedFactsProbe', ['capture'], {}, async (op, client, _ctx, steps) => {
      steps.facts.count = 2;
      // @ts-expect-error a fact no module declares does not compile
      steps.facts.cuont = 2;
      // @ts-expect-error nor a declared fact of another type
      steps.facts.count = '2';
      return steps.add(op, await client.send(op, {}));
    });
    expect(probe.id).toBe('typedFactsProbe');
  });
});
