/**
 * The two verdicts as the engine builds them and every report shows them: a broken invariant fails the run whatever
 * --fail-on says and is named in the catalogue's words; a pass with failures below --fail-on says "CONFORMANT with N
 * warnings" and the three most serious by name; what could not run never hides a failure; reports list what failed
 * most serious first, each request's evidence once.
 */
import { PassThrough } from 'node:stream';
import { XMLParser } from 'fast-xml-parser';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { consoleReporter } from '../../reporters/console.js';
import { reportPage } from '../../reporters/html.js';
import { resultsDocument } from '../../reporters/json.js';
import { junitXml } from '../../reporters/junit.js';
import { markdownSummary } from '../../reporters/markdown.js';
import { buildRunResult } from '../../engine/results.js';
import type { FailOn } from '../../core/config/options.js';
import type { CheckResult, Evidence, Finding, RunResult, Severity } from '../../core/model.js';
import { createAjv } from '../../core/spec/ajv.js';
import { kitSpec } from '../../core/spec/load.js';
import resultsSchema from '../../schemas/results.schema.json' with { type: 'json' };

const spec = kitSpec();

const evidence = (n: number): Evidence => ({
  request: { method: 'POST', url: `http://127.0.0.1:9/v1/refund#${n}`, headers: {}, body: '{}' },
  response: { status: 200, headers: { 'content-type': 'application/json' }, bodyExcerpt: '{}' },
  curl: `curl -sS -X POST 'http://127.0.0.1:9/v1/refund' --data-raw '{"n":${n}}'`,
});

function finding(checkId: string, requirementIds: string[], severity: Severity, n: number): Finding {
  return {
    checkId,
    requirementIds,
    code: 'TRANSITION_ALLOWED',
    severity,
    title: 'Transition allowed that must be refused',
    message: `expected ${checkId} refused / received success`,
    expected: 'refused',
    received: 'success',
    location: { operation: 'refund', pointer: '', exchangeId: `refund#${n}` },
    evidence: evidence(n),
  };
}

function result(
  checkId: string,
  status: CheckResult['status'],
  requirementIds: string[],
  severity: Severity,
  findings: Finding[] = [],
  reason?: string,
): CheckResult {
  return {
    checkId,
    operation: 'refund',
    family: 'lifecycle',
    requirementIds,
    severity,
    status,
    findings,
    durationMs: 1,
    ...(reason ? { reason } : {}),
  };
}

function run(checks: CheckResult[], failOn: FailOn = 'must'): RunResult {
  return buildRunResult(spec, [], checks, {
    metadata: {
      kitVersion: '0.1.0',
      nodeVersion: 'v20',
      commandLine: ['run()'],
      spec: { root: spec.root, digest: spec.digest },
      profile: { name: 'reference', version: '1', file: 'reference.yaml', digest: 'a'.repeat(64) },
      configDigest: 'b'.repeat(64),
      target: { baseUrl: 'http://127.0.0.1:9', embedded: false, allowedBy: 'loopback', allowedHosts: [] },
      seed: 1,
      failOn,
      selection: { only: [], skip: [] },
      startedAt: '2026-11-22T10:00:00.000Z',
      endedAt: '2026-11-22T10:00:01.000Z',
      durationMs: 1000,
    },
    exchanges: 3,
    warnings: [],
    failOn,
  });
}

const overRefund = result('overRefundRefused', 'failed', ['PAGI-INV-001', 'PAGI-BAT-008'], 'invariant', [
  finding('overRefundRefused', ['PAGI-INV-001'], 'invariant', 1),
]);
/** Failures below --fail-on must (warnings), two resting on the over-refund's request. */
const warnings = [
  result('responseHoldsListedFields', 'failed', ['PAGI-GEN-011'], 'expected', [
    finding('responseHoldsListedFields', ['PAGI-GEN-011'], 'expected', 2),
  ]),
  result('refundReferenceIdsNumberedPerProfile', 'failed', ['PAGI-REF-004'], 'profile', [
    finding('refundReferenceIdsNumberedPerProfile', ['PAGI-REF-004'], 'profile', 1),
  ]),
  result('responseSignatureVerifies', 'failed', ['PAGI-AUTH-007'], 'profile', [
    finding('responseSignatureVerifies', ['PAGI-AUTH-007'], 'profile', 1),
  ]),
  result('refundSearchShowsEveryRefund', 'failed', ['PAGI-RFS-003'], 'expected', [
    finding('refundSearchShowsEveryRefund', ['PAGI-RFS-003'], 'expected', 3),
  ]),
];
const passed = result('overCaptureRefused', 'passed', ['PAGI-INV-002'], 'invariant');

async function consoleText(r: RunResult): Promise<string[]> {
  const stream = Object.assign(new PassThrough(), { isTTY: false });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await consoleReporter(stream, {}).onRunEnd?.(r, { outDir: 'reports', exchanges: [], files: [] });
  return text.trimEnd().split('\n');
}

const validate = createAjv().compile(resultsSchema);

describe('the two verdicts', () => {
  it('a broken invariant fails the run through the integrity verdict, whatever --fail-on says', async () => {
    const r = run([passed, overRefund, ...warnings], 'must');
    expect(validate(resultsDocument(r)), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(r).toMatchObject({ verdict: 'NOT CONFORMANT', exitCode: 1 });
    expect(r.verdicts!.document).toMatchObject({ verdict: 'CONFORMANT', failed: [] });
    expect(r.verdicts!.document.warnings.map((w) => `${w.check} ${w.level}`)).toEqual([
      'refund/responseHoldsListedFields expected',
      'refund/refundSearchShowsEveryRefund expected',
      'refund/refundReferenceIdsNumberedPerProfile profile',
      'refund/responseSignatureVerifies profile',
    ]);
    expect(r.verdicts!.integrity).toMatchObject({
      verdict: 'FAILED',
      broken: [
        {
          id: 'PAGI-INV-001',
          family: 'money',
          breach: 'a refund above what remains of the captured amount was accepted',
          checks: ['refund/overRefundRefused'],
        },
      ],
    });
    expect(r.verdictReasons[0]).toBe(
      'Payment integrity FAILED: a refund above what remains of the captured amount was accepted (PAGI-INV-001, money): refund/overRefundRefused.',
    );
    expect(r.totals.findings.invariant).toBe(1);

    const lines = await consoleText(r);
    expect(lines.slice(-3)).toEqual([
      'document conformance (--fail-on must): CONFORMANT — 4 warnings below must',
      'payment integrity: FAILED — a refund above what remains of the captured amount was accepted (PAGI-INV-001)',
      'verdict: NOT CONFORMANT (Payment integrity FAILED: a refund above what remains of the captured amount was accepted (PAGI-INV-001, money): refund/overRefundRefused.)',
    ]);
    // Most serious first; each request's curl line once, the other checks resting on it named on one line.
    const text = lines.join('\n');
    expect(text.indexOf('✗ refund/overRefundRefused')).toBeLessThan(text.indexOf('✗ refund/responseHoldsListedFields'));
    expect(text.indexOf('✗ refund/responseHoldsListedFields')).toBeLessThan(
      text.indexOf('✗ refund/refundReferenceIdsNumberedPerProfile'),
    );
    expect(text.split(evidence(1).curl).length - 1).toBe(1);
    expect(text).toContain(
      '(the same request for refund/refundReferenceIdsNumberedPerProfile, refund/responseSignatureVerifies)',
    );
    expect(text).not.toContain('same request as');
  });

  it('a pass with failures below --fail-on is never a bare CONFORMANT: its count and the three most serious by name', async () => {
    const r = run([passed, ...warnings], 'must');
    expect(r).toMatchObject({ verdict: 'CONFORMANT', exitCode: 0 });
    expect((await consoleText(r)).at(-1)).toBe(
      'verdict: CONFORMANT with 4 warnings: refund/responseHoldsListedFields (expected), refund/refundSearchShowsEveryRefund (expected), refund/refundReferenceIdsNumberedPerProfile (profile) and 1 more',
    );
    expect((await consoleText(run([passed]))).at(-1)).toBe('verdict: CONFORMANT');
    // --fail-on expected: the expected ones fail the document verdict, the profile ones stay warnings.
    const strict = run([passed, ...warnings], 'expected');
    expect(strict.verdicts!.document).toMatchObject({ verdict: 'NOT CONFORMANT' });
    expect(strict.verdicts!.document.warnings.map((w) => w.level)).toEqual(['profile', 'profile']);
  });

  it('INCONCLUSIVE never hides a failure: a broken invariant or a failure at --fail-on beside checks that could not run', () => {
    const couldNot = result('batchAtLimitAccepted', 'skipped', ['PAGI-LIM-006'], 'must', [], 'HTTP 429');
    expect(run([couldNot, warnings[0]!]).verdict).toBe('INCONCLUSIVE');
    expect(run([couldNot, overRefund])).toMatchObject({ verdict: 'NOT CONFORMANT', exitCode: 1 });
    expect(run([couldNot, warnings[0]!], 'expected').verdict).toBe('NOT CONFORMANT');
    // An invariant check that could not run leaves integrity inconclusive; none selected, not checked.
    const integrity = run([result('overRefundRefused', 'skipped', ['PAGI-INV-001'], 'invariant', [], 'HTTP 503')]);
    expect(integrity.verdicts!.integrity.verdict).toBe('INCONCLUSIVE');
    expect(integrity.verdict).toBe('INCONCLUSIVE');
    expect(run([warnings[0]!]).verdicts!.integrity.verdict).toBe('NOT CHECKED');
  });

  it('the console lists as "could not run" exactly the checks the verdicts count so (one rule: countsAs)', async () => {
    // Recorded at `expected` on this operation, yet tracing to a must requirement: the verdict is INCONCLUSIVE for it.
    const traced = result('batchAtLimitAccepted', 'skipped', ['PAGI-LIM-006'], 'expected', [], 'HTTP 429');
    const invariant = result('overRefundRefused', 'skipped', ['PAGI-INV-001'], 'invariant', [], 'HTTP 503');
    const below = result(
      'refundReferenceIdsNumberedPerProfile',
      'skipped',
      ['PAGI-PRF-004'],
      'profile',
      [],
      'HTTP 429',
    );
    const r = run([traced, invariant, below]);
    expect(r.verdict).toBe('INCONCLUSIVE');
    const lines = await consoleText(r);
    const at = lines.indexOf('must and invariant checks that could not run:');
    expect(at).toBeGreaterThan(-1);
    const after = lines.slice(at + 1);
    const listed = after.slice(
      0,
      after.findIndex((l) => !l.startsWith('  - ')),
    );
    expect(listed.map((l) => l.split(':')[0])).toEqual([
      '  - refund/batchAtLimitAccepted',
      '  - refund/overRefundRefused',
    ]);
  });

  it('the HTML report opens with what failed, most serious first, its banner naming the broken invariant in words', () => {
    const page = new JSDOM(reportPage(run([passed, overRefund, ...warnings]))).window.document;
    const banner = page.querySelector('header.verdict')!;
    expect(banner.className).toContain('v-NOT-CONFORMANT');
    expect(page.querySelector('#verdict')!.textContent).toBe('NOT CONFORMANT');
    expect(page.querySelector('header .breaches')!.textContent).toBe(
      'A refund above what remains of the captured amount was accepted (PAGI-INV-001, money)',
    );
    expect([...page.querySelectorAll('header .verdicts > li')].map((li) => li.firstChild!.textContent)).toEqual([
      'document conformance (--fail-on must): CONFORMANT — 4 warnings below must',
      'payment integrity: FAILED',
    ]);
    // The reasons the verdict lines already say are not repeated.
    expect(page.querySelectorAll('header .reasons')).toHaveLength(0);
    const section = page.querySelector('section.failures')!;
    // Above the facts and the matrix.
    expect(section.compareDocumentPosition(page.querySelector('#matrix')!) & 4).toBeTruthy();
    expect(section.compareDocumentPosition(page.querySelector('dl.facts')!) & 4).toBeTruthy();
    const names = [...section.querySelectorAll('.failure h3')].map((h) => h.textContent);
    expect(names).toEqual([
      'refund/overRefundRefused',
      'refund/responseHoldsListedFields',
      'refund/refundSearchShowsEveryRefund',
      'refund/refundReferenceIdsNumberedPerProfile',
      'refund/responseSignatureVerifies',
    ]);
    expect(section.querySelector('.failure p')!.textContent).toBe(
      'breaks payment integrity: a refund above what remains of the captured amount was accepted (PAGI-INV-001)',
    );
    expect(section.querySelectorAll('pre.curl').length).toBe(3);
    expect(section.textContent).toContain('Evidence: the same request as refund/overRefundRefused above.');

    const warned = new JSDOM(reportPage(run([passed, ...warnings]))).window.document;
    expect(warned.querySelector('header.verdict')!.className).toContain('v-CONFORMANT-WARNINGS');
    expect(warned.querySelector('#verdict')!.textContent).toBe('CONFORMANT with 4 warnings');
    const clean = new JSDOM(reportPage(run([passed]))).window.document;
    expect(clean.querySelector('header.verdict')!.className).toMatch(/v-CONFORMANT$/);
    expect(clean.querySelector('section.failures')).toBeNull();
  });

  it('Markdown and JUnit show both verdicts and the broken invariant', () => {
    const r = run([passed, overRefund, ...warnings]);
    const md = markdownSummary(r);
    expect(md).toContain('- payment integrity: FAILED');
    expect(md).toContain('**a refund above what remains of the captured amount was accepted** (PAGI-INV-001, money)');
    expect(md.indexOf('`refund/overRefundRefused`')).toBeLessThan(md.indexOf('`refund/responseHoldsListedFields`'));
    const xml = new XMLParser({ ignoreAttributes: false }).parse(junitXml(r));
    const props = Object.fromEntries(
      (xml.testsuites.testsuite.properties.property as { '@_name': string; '@_value': string }[]).map((p) => [
        p['@_name'],
        p['@_value'],
      ]),
    );
    expect(props).toMatchObject({
      verdict: 'NOT CONFORMANT',
      'verdict.document': 'CONFORMANT',
      'verdict.integrity': 'FAILED',
      'integrity.PAGI-INV-001': 'a refund above what remains of the captured amount was accepted',
    });
  });
});

describe('a failed check is labelled with the level it fails at, in every report', () => {
  // Declared must (PAGI-FMT-001) and invariant (PAGI-INV-006), each failing only an expected requirement: what a
  // gateway answering a lower-case currency breaks (serve --fault direct-currency-lower-case).
  const formats = result('fieldFormatsFollowConventions', 'failed', ['PAGI-FMT-001', 'PAGI-FMT-004'], 'must', [
    finding('fieldFormatsFollowConventions', ['PAGI-FMT-004'], 'expected', 1),
  ]);
  const echoes = result(
    'responseEchoesRequestFields',
    'failed',
    ['PAGI-GEN-005', 'PAGI-PAY-007', 'PAGI-INV-006'],
    'invariant',
    [finding('responseEchoesRequestFields', ['PAGI-GEN-005'], 'expected', 1)],
  );
  const r = run([passed, formats, echoes]);

  it('the verdicts count them as expected warnings; the labels say expected too', async () => {
    expect(r.verdicts!.integrity.verdict).toBe('PASSED');
    expect(r.verdicts!.document.warnings.map((w) => `${w.check} ${w.level}`)).toEqual([
      'refund/fieldFormatsFollowConventions expected',
      'refund/responseEchoesRequestFields expected',
    ]);
    const text = (await consoleText(r)).join('\n');
    expect(text).toContain('✗ refund/fieldFormatsFollowConventions [expected] PAGI-FMT-004\n');
    expect(text).toContain('✗ refund/responseEchoesRequestFields [expected] PAGI-GEN-005\n');
    expect(text).not.toMatch(/\[(must|invariant)\]/);

    const page = new JSDOM(reportPage(r), { runScripts: 'dangerously' }).window.document;
    expect(
      [...page.querySelectorAll('section.failures .failure')].map((f) => [
        f.className,
        f.querySelector('p')!.textContent,
      ]),
    ).toEqual([
      ['failure sev-expected', 'fails at expected (a warning: below --fail-on)'],
      ['failure sev-expected', 'fails at expected (a warning: below --fail-on)'],
    ]);
    const rows = [...page.querySelectorAll('tr.check')].filter((row) => row.getAttribute('data-check') !== '0');
    expect(new Set(rows.map((row) => row.children[3]!.textContent))).toEqual(new Set(['expected']));
    const details = rows[0]!.querySelector('details')!;
    details.open = true;
    details.dispatchEvent(new page.defaultView!.Event('toggle'));
    expect(details.querySelector('.detail p')!.textContent).toMatch(
      / · fails at expected \(its requirements reach (must|invariant)\) · /,
    );

    const md = markdownSummary(r);
    expect(md).toContain('| `refund/fieldFormatsFollowConventions` | PAGI-FMT-004 | expected |');
    expect(md).toContain('| `refund/responseEchoesRequestFields` | PAGI-GEN-005 | expected |');

    const xml = new XMLParser({ ignoreAttributes: false }).parse(junitXml(r));
    const cases = (
      xml.testsuites.testsuite.testcase as {
        '@_name': string;
        failure?: { '@_message': string };
        'system-out': string;
      }[]
    ).filter((c) => c.failure);
    expect(cases.map((c) => c.failure!['@_message'].split(' (')[0])).toEqual([
      'fieldFormatsFollowConventions failed at expected on refund',
      'responseEchoesRequestFields failed at expected on refund',
    ]);
    for (const c of cases) expect(c['system-out']).toContain('\nfails at: expected\n');
  });
});
