/**
 * A failure resting on several requests replays from its report: the steps in the order sent, each after a comment
 * naming it, the failing one marked, the identifiers a step takes from an earlier answer named, then the exact
 * `pagi-conform reproduce` command, in the console, report.html, summary.md and junit.xml.
 */
import { PassThrough } from 'node:stream';
import { XMLParser } from 'fast-xml-parser';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import type { Evidence, RunResult } from '../../core/model.js';
import { consoleReporter } from '../../reporters/console.js';
import { reportPage } from '../../reporters/html.js';
import { junitXml } from '../../reporters/junit.js';
import { markdownSummary } from '../../reporters/markdown.js';
import { hostileResult } from './fixtures/hostile.js';

const evidence = (op: string, body: string): Evidence => ({
  request: { method: 'POST', url: `http://127.0.0.1:9/v1/${op}`, headers: {}, body },
  response: { status: 200, headers: {}, bodyExcerpt: '{}' },
  curl: `curl -sS -X POST 'http://127.0.0.1:9/v1/${op}' --data-raw '${body}'`,
});
const payment = evidence('authorise', '{"order_no":"O-1"}');
const refund = evidence('refund', '{"refund_orders":[{"transaction_id":"T1001"}]}');

/** The hostile run whose failed check rests on a payment and the refund that fails, in the order sent. */
function run(): RunResult {
  const r = hostileResult();
  const failed = r.checks[1]!;
  Object.assign(failed, { checkId: 'overRefundRefused', operation: 'refund' });
  const f = failed.findings[0]!;
  f.location = { operation: 'refund', pointer: '/refund_orders/0/refund_status', exchangeId: 'refund#w1.4' };
  f.evidence = refund;
  f.exchanges = [
    { exchangeId: 'authorise#w1.1', evidence: payment },
    {
      exchangeId: 'refund#w1.4',
      evidence: refund,
      uses: [
        {
          field: '/refund_orders/0/transaction_id',
          value: 'T1001',
          from: 'authorise#w1.1',
          fromField: '/transaction_id',
        },
      ],
    },
  ];
  return r;
}

const STEP1 = '# step 1 of 2: POST /v1/authorise, a set-up step';
const STEP2 =
  '# step 2 of 2: POST /v1/refund, the failing request; replaying, replace "T1001" at /refund_orders/0/transaction_id by the /transaction_id step 1 answers';
const REPRODUCE = 'pagi-conform reproduce out/results.json overRefundRefused@refund';

describe('a failure resting on several requests', () => {
  it('the console prints the steps in order, each after its comment, then the reproduce command', async () => {
    const stream = Object.assign(new PassThrough(), { isTTY: false });
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await consoleReporter(stream, {}).onRunEnd?.(run(), { outDir: 'out', exchanges: [], files: ['out/results.json'] });
    expect(text).toContain(
      [STEP1, payment.curl, STEP2, refund.curl, `replay the steps with fresh identifiers: ${REPRODUCE}`]
        .map((l) => `      ${l}\n`)
        .join(''),
    );
  });

  it('report.html, summary.md and junit.xml show the same steps and command', () => {
    const page = new JSDOM(reportPage(run(), 'out/results.json')).window.document;
    const failure = page.querySelector('section.failures .failure')!;
    expect(
      [...failure.querySelectorAll('p.step')].map((p) => [p.textContent, p.classList.contains('failing')]),
    ).toEqual([
      [STEP1, false],
      [STEP2, true],
    ]);
    expect([...failure.querySelectorAll('pre.curl')].map((p) => p.textContent)).toEqual([payment.curl, refund.curl]);
    expect(failure.querySelector('p.reproduce code')!.textContent).toBe(REPRODUCE);

    const md = markdownSummary(run(), 'out/results.json');
    expect(md.indexOf(`${STEP1}\n${payment.curl}`)).toBeGreaterThan(0);
    expect(md.indexOf(`${STEP2}\n${refund.curl}`)).toBeGreaterThan(md.indexOf(STEP1));
    expect(md).toContain(REPRODUCE);

    const xml = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testsuite' || n === 'testcase' }).parse(
      junitXml(run(), 'out/results.json'),
    );
    const body = (xml.testsuites.testsuite as { testcase: { failure?: { '#text': string } }[] }[])
      .flatMap((s) => s.testcase)
      .find((c) => c.failure)!.failure!['#text'];
    expect(body.indexOf(STEP1)).toBeLessThan(body.indexOf(STEP2));
    expect(body).toContain(`replay the steps with fresh identifiers: ${REPRODUCE}`);
  });
});
