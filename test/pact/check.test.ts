import path from 'node:path';
import { verdictLines } from '../../reporters/format.js';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { checkPact, findingsOf, readPactFile } from '../../pact/check.js';
import { generatePact } from '../../pact/interactions.js';
import type { PactFile } from '../../pact/pact-file.js';
import { kitValidator } from '../../core/spec/validators.js';
import { resultsDocument } from '../../reporters/json.js';

describe('pact check', () => {
  it('finds nothing in the generated pact', () => {
    const result = checkPact(generatePact());
    expect(findingsOf(result)).toEqual([]);
    expect(result.verdict).toBe('CONFORMANT');
    expect(result.checks.length).toBeGreaterThan(0);
  });

  it('finds each of the three wrong expectations of the example merchant pact, with its requirement', () => {
    const result = checkPact(
      readPactFile(path.join(KIT_ROOT, 'examples', 'pacts', 'merchant-three-wrong-expectations.json')),
    );
    const findings = findingsOf(result);
    expect(findings.map((f) => [f.location.operation, f.code, f.requirementIds])).toEqual([
      ['capture', 'RESPONSE_SCHEMA', ['PAGI-ST-001']],
      ['retrievalTrans', 'STATUS_NOT_SHOWN', ['PAGI-GEN-007']],
      ['authoriseDirect', 'PRESENCE_NOT_SHOWN', ['PAGI-GEN-008']],
    ]);
    expect(result.exitCode).toBe(1);
    // The results model of a run: results.json of a pact check is valid against schemas/results.schema.json.
    const validate = kitValidator('https://pagi-conformance.dev/schemas/results.schema.json');
    expect(validate(resultsDocument(result)), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it('reports limits, media types, XML and HTML forms, exact values and narrower regexes', () => {
    const pact = generatePact() as PactFile;
    const byKey = (key: string) => pact.interactions.find((i) => i.key === key)!;
    const capture = byKey('capture-200');
    const content = capture.request.body!.content as Record<string, unknown>;
    content.capture_orders = Array.from({ length: 51 }, () => (content.capture_orders as unknown[])[0]);
    capture.request.headers = { 'Content-Type': ['text/plain'] };
    const refund = byKey('refund-200');
    delete refund.response.matchingRules!.body!['$.encryption_data'];
    const direct = byKey('authoriseDirect-200');
    direct.response.body!.content = '<answer><merchant_id>M10001</merchant_id></answer>';
    const checkout = byKey('checkout-200');
    checkout.response.matchingRules = {};
    const query = byKey('retrievalTrans-200');
    query.response.matchingRules!.body!['$.return_status'] = {
      combine: 'AND',
      matchers: [{ match: 'regex', regex: '^1$' }],
    };
    const refundSearch = byKey('retrievalRefund-200');
    refundSearch.response.matchingRules!.body!['$.encryption_data'] = {
      combine: 'AND',
      matchers: [{ match: 'regex', regex: '^[0-9a-f]{32}$' }],
    };
    const search = byKey('retrievalRefund-200');
    search.request.body!.content =
      `merchant_id=M10001&account_id=A20001&encryption_data=${'a'.repeat(64)}&order_no=${Array.from({ length: 101 }, (_, i) => `O${i}`).join(',')}`;
    const codes = findingsOf(checkPact(pact)).map(
      (f) => `${f.location.operation} ${f.code} ${f.requirementIds.join(',')}`,
    );
    expect(codes).toEqual(
      expect.arrayContaining([
        'capture REQUEST_OVER_LIMIT PAGI-LIM-004',
        'capture REQUEST_MEDIA PAGI-MED-002',
        'refund VALUE_NOT_SHOWN PAGI-GEN-008',
        'authoriseDirect BODY_FORM PAGI-MED-006',
        'checkout VALUE_NOT_SHOWN PAGI-GEN-008',
        'retrievalTrans FORM_NARROWER PAGI-GEN-008',
        'retrievalRefund FORM_NARROWER PAGI-AUTH-003',
        'retrievalRefund REQUEST_OVER_LIMIT PAGI-LIM-002',
      ]),
    );
    // A profile that takes only its own media type makes the other one a profile-level finding.
    const json = generatePact() as PactFile;
    const jsonQuery = json.interactions.find((i) => i.key === 'retrievalTrans-200')!;
    jsonQuery.request.headers = { 'Content-Type': ['application/json'] };
    jsonQuery.request.body = {
      content: Object.fromEntries(new URLSearchParams(String(jsonQuery.request.body!.content))),
      contentType: 'application/json',
      encoded: false,
    };
    expect(findingsOf(checkPact(json))).toEqual([]);
    const strict = findingsOf(checkPact(json, { profile: 'sample-hmac-sorted' })).filter(
      (f) => f.location.operation === 'retrievalTrans' && f.code === 'REQUEST_MEDIA',
    );
    expect(strict.map((f) => [f.requirementIds, f.severity])).toEqual([[['PAGI-MED-005'], 'profile']]);
  });

  it('masks card numbers a merchant pact quotes in its findings', () => {
    const pact = generatePact() as PactFile;
    const direct = pact.interactions.find((i) => i.key === 'authoriseDirect-200')!;
    const body = direct.request.body!.content as Record<string, unknown>;
    body.amount = 4111111111111111;
    body.note = { pan: '4000 0000 0000 0002' };
    const result = checkPact(pact);
    const text = JSON.stringify(result);
    expect(findingsOf(result).length).toBeGreaterThan(0);
    expect(text).not.toMatch(/4111111111111111|4000 0000 0000 0002/);
  });
});

describe('pact check table', () => {
  it('holds ordinary checks: valid like the suites table, ids and codes apart from the suites', async () => {
    const { PACT_CHECKS, pactProbe } = await import('../../pact/checks.js');
    const { PACT_FINDING_CODES } = await import('../../pact/codes.js');
    const { CHECKS, PROBES } = await import('../../suites/registry.js');
    const { RUN_FINDING_CODES } = await import('../../core/types/finding-codes.js');
    const { registryProblems } = await import('../../engine/registry.js');
    const { kitSpec } = await import('../../core/spec/load.js');
    const spec = kitSpec();
    // One table of checks: pact and suites checks together have unique ids and pass the registry's rules.
    expect(
      registryProblems({ CHECKS: [...CHECKS, ...PACT_CHECKS], PROBES: [...PROBES, pactProbe(spec)] }, spec),
    ).toEqual([]);
    expect(Object.keys(PACT_FINDING_CODES).filter((c) => c in RUN_FINDING_CODES)).toEqual([]);
    // A run never plans them: the pact probe sends nothing.
    await expect(pactProbe(spec).run('capture', {} as never, {} as never)).rejects.toThrow(/pact/);
  });

  it('goes through the engine: a failing finding fails its check, the roll-up names the requirement', () => {
    const result = checkPact(
      readPactFile(path.join(KIT_ROOT, 'examples', 'pacts', 'merchant-three-wrong-expectations.json')),
    );
    const status = result.checks.find((c) => c.operation === 'retrievalTrans' && c.checkId === 'pactStatusShown')!;
    expect([status.status, status.severity, status.requirementIds]).toEqual(['failed', 'must', ['PAGI-GEN-007']]);
    expect(result.requirements.find((r) => r.id === 'PAGI-ST-001')?.status).toBe('failed');
    // A finding on something the document does not show fails its check but never the document verdict.
    const presence = result.checks.find(
      (c) => c.operation === 'authoriseDirect' && c.checkId === 'pactResponseGuaranteed',
    )!;
    expect(presence.status).toBe('failed');
    expect(result.verdicts?.document.failed.map((f) => f.check)).not.toContain(
      'authoriseDirect/pactResponseGuaranteed',
    );
  });

  it('fails a pact with an interaction on a path the interface does not have', () => {
    const pact = generatePact() as PactFile;
    pact.interactions[0]!.request.path = '/v1/nothing';
    const result = checkPact(pact);
    expect([result.verdict, result.exitCode]).toEqual(['NOT CONFORMANT', 1]);
    // What decides the verdict is reported at the level that decides it, and named: not a warning.
    const name = `POST /v1/nothing (${pact.interactions[0]!.description})`;
    expect(result.warnings).toEqual([]);
    expect(result.verdicts?.document.failed[0]).toEqual({ check: name, level: 'must' });
    expect(result.verdictReasons).toEqual([
      expect.stringMatching(
        /Path not in the interface \(must\): expected a path of the interface .* \/ received "\/v1\/nothing"\.$/,
      ),
    ]);
    expect(verdictLines(result)[0]).toBe(
      `document conformance (--fail-on must): NOT CONFORMANT — 1 check failed at or above must: ${name} (must)`,
    );
    // Whatever --fail-on says; a mistyped path gets the closest one.
    expect(checkPact(pact, { failOn: 'profile' }).verdict).toBe('NOT CONFORMANT');
    pact.interactions[0]!.request.path = '/v1/captur';
    expect(checkPact(pact).verdictReasons[0]).toMatch(/received "\/v1\/captur"; did you mean '\/v1\/capture'\?$/);
  });
});

describe('pact command line', () => {
  it('takes its flags from the options table, command by command', async () => {
    const { parseCommandLine } = await import('../../core/config/load.js');
    expect(
      parseCommandLine('pact check', ['f.json', '--fail-on', 'expected', '--reporter', 'json,junit'], true),
    ).toEqual({ options: { failOn: 'expected', reporter: ['json', 'junit'] }, positionals: ['f.json'] });
    expect(
      parseCommandLine('pact verify', ['--target', 'http://gw:8080/', '--merchant-id', 'M1', '--publish'], false)
        .options,
    ).toEqual({ target: 'http://gw:8080', merchantId: 'M1', publish: true });
    expect(parseCommandLine('pact generate', ['--out', 'dir'], false).options).toEqual({ pactOut: 'dir' });
    expect(() => parseCommandLine('pact check', ['--merchant-id', 'M1'], true)).toThrow(/Unknown option/);
    expect(() => parseCommandLine('pact check', ['--fail-on', 'never'], true)).toThrow(/--fail-on must be one of/);
  });
});
