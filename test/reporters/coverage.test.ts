/**
 * "requirements checked: N/M" names the requirements it leaves out, with why each is not checked (the reasons its
 * checks give, or that no check traces to it): in the console, report.html, summary.md and junit.xml.
 */
import { PassThrough } from 'node:stream';
import { XMLParser } from 'fast-xml-parser';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { consoleReporter } from '../../reporters/console.js';
import { reportPage } from '../../reporters/html.js';
import { junitXml } from '../../reporters/junit.js';
import { markdownSummary } from '../../reporters/markdown.js';
import type { CheckResult, RunResult } from '../../core/model.js';
import { hostileResult } from './fixtures/hostile.js';

const headers = (operation: string): CheckResult => ({
  checkId: 'requestHeadersPerProfile',
  operation,
  family: 'security',
  requirementIds: ['PAGI-AUTH-012'],
  severity: 'profile',
  status: 'not_applicable',
  reason: 'the profile names no extra request header',
  findings: [],
  durationMs: 1,
});

/** The hostile run with two requirements not checked: one whose checks were not applicable, one with no check. */
function run(): RunResult {
  const r = hostileResult();
  r.checks.push(headers('checkout'), headers('refund'));
  r.requirements.push({
    id: 'PAGI-AUTH-012',
    level: 'profile',
    status: 'not_applicable',
    checks: ['checkout/requestHeadersPerProfile', 'refund/requestHeadersPerProfile'],
  });
  r.coverage = { testable: 4, checked: 2, unchecked: ['PAGI-AUTH-012', 'PAGI-EVT-001'] };
  return r;
}

const LINES = [
  'PAGI-AUTH-012 (profile): not applicable: the profile names no extra request header',
  'PAGI-EVT-001 (must): no check traces to it',
];

async function consoleText(r: RunResult): Promise<string> {
  const stream = Object.assign(new PassThrough(), { isTTY: false });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await consoleReporter(stream, {}).onRunEnd?.(r, { outDir: 'reports', exchanges: [], files: [] });
  return text;
}

describe('requirements not checked', () => {
  it('the console names them after the count, each with why', async () => {
    const text = await consoleText(run());
    expect(text).toContain(
      `requirements checked: 2/4; exchanges: 1; 10.0 s\nrequirements not checked (2):\n  - ${LINES[0]}\n  - ${LINES[1]}\n`,
    );
    const all = hostileResult();
    all.coverage = { ...all.coverage, checked: 3, unchecked: [] };
    expect(await consoleText(all)).not.toContain('requirements not checked');
  });

  it('report.html, summary.md and junit.xml name them too', () => {
    const page = new JSDOM(reportPage(run())).window.document;
    expect([...page.querySelectorAll('ul.unchecked li')].map((li) => li.textContent)).toEqual(LINES);
    const escaped = LINES.map((l) => l.replace(/[()]/g, (c) => `\\${c}`)).join('; ');
    expect(markdownSummary(run())).toContain(`2 / 4 testable requirements checked; not checked: ${escaped} |`);
    const xml = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testsuite' }).parse(junitXml(run()));
    const props = Object.fromEntries(
      (xml.testsuites.testsuite[0].properties.property as { '@_name': string; '@_value': string }[]).map((p) => [
        p['@_name'],
        p['@_value'],
      ]),
    );
    expect(props).toMatchObject({
      'unchecked.PAGI-AUTH-012': 'profile: not applicable: the profile names no extra request header',
      'unchecked.PAGI-EVT-001': 'must: no check traces to it',
    });
  });
});
