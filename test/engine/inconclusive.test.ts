/** The one rule for "retry later": the engine and the probes read it alike. */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../core/model.js';
import { answeredRetryLater } from '../../engine/inconclusive.js';
import { inconclusiveReason } from '../../engine/suite.js';
import { defineProbe } from '../../suites/probes/support.js';
import { context, exchange } from '../suites/fixtures.js';

const observe = (steps: Record<string, Exchange>) => ({
  probeId: 'p',
  operation: 'capture' as const,
  main: exchange('capture'),
  steps,
  facts: {},
});

describe('answeredRetryLater', () => {
  it('holds for a sent request answered 429 or 503, not for other statuses or for a notification the kit received', () => {
    expect(answeredRetryLater(exchange('capture', { status: 429 }))).toBe(true);
    expect(answeredRetryLater(exchange('capture', { status: 503 }))).toBe(true);
    expect(answeredRetryLater(exchange('capture', { status: 500 }))).toBe(false);
    expect(answeredRetryLater(exchange('capture', { status: 200 }))).toBe(false);
    expect(answeredRetryLater({ ...exchange('external', { status: 503 }), incoming: true })).toBe(false);
  });

  it('the engine and a probe agree on the same steps, whatever a step is named', async () => {
    const cases: Record<string, Exchange>[] = [
      { 'notification-like': exchange('capture', { status: 429 }) },
      { refused: { ...exchange('external', { status: 503 }), incoming: true } },
      { again: exchange('capture', { status: 500 }) },
    ];
    for (const steps of cases) {
      const probe = defineProbe('t', ['capture'], {}, async (_op, _client, _ctx, s) => {
        for (const [name, x] of Object.entries(steps)) s.addComputed(name, x);
        return exchange('capture');
      });
      const o = await probe.run('capture', {} as never, context());
      expect(o.inconclusive !== undefined, JSON.stringify(Object.keys(steps))).toBe(
        inconclusiveReason(observe(steps)) !== undefined,
      );
    }
  });
});
