/**
 * The console's progress: suite files run side by side, so results of other operations arrive between an
 * operation's own. Each operation line's "N checks done so far" counts the lines printed, growing by exactly the
 * checks the line shows (monotone, ending at the total), and the terminal's running counter by one per check.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CheckResult, Family, OperationKey } from '../../core/model.js';
import { consoleReporter } from '../../reporters/console.js';

const check = (
  family: Family,
  operation: OperationKey,
  checkId: string,
  status: CheckResult['status'],
): CheckResult => ({
  checkId,
  operation,
  family,
  requirementIds: ['PAGI-GEN-007'],
  severity: 'must',
  status,
  findings: [],
  durationMs: 1,
});

type Event = CheckResult | [Family, OperationKey];

/** What the console reporter prints for these events, on a terminal or not. */
function output(events: Event[], isTTY: boolean): string {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const reporter = consoleReporter(stream, { NO_COLOR: '1' });
  for (const e of events) Array.isArray(e) ? reporter.onOperationEnd?.(e[0], e[1]) : reporter.onCheckResult?.(e);
  return text;
}

// Three files' results interleaved, as vitest delivers them: 8 shape checks, conventions' two operations mixed.
const events: Event[] = [
  ...['a', 'b', 'c'].map((id) => check('shape', 'authoriseDirect', id, 'passed')),
  check('conventions', 'authoriseDirect', 'x', 'failed'),
  check('conventions', 'capture', 'y', 'passed'),
  check('shape', 'authoriseDirect', 'd', 'passed'),
  ['shape', 'authoriseDirect'],
  check('conventions', 'capture', 'z', 'passed'),
  check('conventions', 'authoriseDirect', 'w', 'passed'),
  ['conventions', 'authoriseDirect'],
  ...['p', 'q', 'r'].map((id) => check('conventions', 'capture', id, 'not_applicable')),
  ['conventions', 'capture'],
  ['conventions', 'capture'],
];

describe('console progress', () => {
  it('each line counts the lines printed: it grows by the checks the line shows', () => {
    const lines = output(events, false).trimEnd().split('\n');
    expect(
      lines.map((l) => /^ {2}[✓✗] (\S+) +(.*?) {2}\((\d+) checks? done so far: (.*)\)$/.exec(l)!.slice(1)),
    ).toEqual([
      ['shape/authoriseDirect', '4 passed', '4', '4 passed'],
      ['conventions/authoriseDirect', '1 passed, 1 failed', '6', '5 passed, 1 failed'],
      ['conventions/capture', '2 passed, 3 not applicable', '11', '7 passed, 1 failed, 3 not applicable'],
    ]);
  });

  it("the terminal's running counter advances by one per check", () => {
    const counters = [...output(events, true).matchAll(/… (\d+) checks:/g)].map((m) => Number(m[1]));
    expect(counters).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});
