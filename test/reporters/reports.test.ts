/**
 * The reports end to end, on one real run (made once, in beforeAll) against the reference gateway started with one
 * fault (`pagi-conform serve --fault`), a secret and test cards given through the config file and the environment,
 * every reporter on and the report signed: each format shows the failed check, its requirement and the evidence;
 * results.json follows its schema; the report verifies and catches edits; no card number, security code or secret
 * is written anywhere; the report works in headless Chromium. Then the same run in three shards, merged, gives the
 * same verdict, totals and per-check results.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultConfig, findFault } from '../../gateway/index.js';
import type { ResultsDocument } from '../../reporters/json.js';
import type { CheckResult, Evidence, Finding } from '../../core/model.js';
import { main } from '../../cli/main.js';
import { loadProfile } from '../../core/profile/load.js';
import { createAjv } from '../../core/spec/ajv.js';
import { KIT_ROOT, SCHEMAS_DIR } from '../../core/spec/paths.js';
import harSchema from './fixtures/har-1.2.schema.json' with { type: 'json' };
import { pagiConform, serve, type CliRun, type ServeProcess } from '../support/cli.js';

const FAULT = 'checkout-values-unescaped';
/** A secret with a space and characters that URL-encoding and JSON-escaping change. */
const SECRET = 'Zq7 s&cr/t+"k3y"=0042';
const SECURITY_CODE = '9731';
const ARTEFACTS = path.join(KIT_ROOT, 'reports', 'test-artifacts');
const CHROMIUM = '/usr/bin/chromium';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-reports-'));
const OUT = path.join(work, 'run');
const MERGED = path.join(work, 'merged');
const file = (name: string) => path.join(work, name);
/** Files the test writes for the kit and the gateway (the configs hold the secret by design). */
const INPUTS = ['gateway.json', 'kit.json', 'sign.pem', 'sign.pub', 'other.pub'];
const read = (dir: string, name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

const profile = loadProfile('reference').profile;
const CARDS = { approve: profile.payments.testCards.approve[0]!, decline: profile.payments.testCards.decline[0]! };
const ENV = { PAGI_SECRET: SECRET };

let gateway: ServeProcess;
let run: CliRun;
const runs: CliRun[] = [];
let results: ResultsDocument;
let failed: CheckResult;
let finding: Finding & { evidence: Evidence };

beforeAll(async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  fs.writeFileSync(file('sign.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(file('sign.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  fs.writeFileSync(file('other.pub'), generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
  const config = defaultConfig();
  const merchants = config.merchants.map((m) => ({
    ...m,
    secret: SECRET,
    accounts: m.accounts.map((a) => ({ ...a, secret: SECRET })),
  }));
  fs.writeFileSync(file('gateway.json'), JSON.stringify({ merchants }));
  const account = merchants[0]!;
  fs.writeFileSync(
    file('kit.json'),
    JSON.stringify({
      merchantId: account.merchantId,
      accountId: account.accounts[0]!.accountId,
      cards: CARDS,
      cardSecurityCode: SECURITY_CODE,
    }),
  );
  gateway = await serve(['--config', file('gateway.json'), '--fault', FAULT]);
  run = await pagiConform(
    [
      'run',
      '--target',
      gateway.url,
      '--config',
      file('kit.json'),
      '--out',
      OUT,
      '--seed',
      '7',
      '--reporter',
      'console,json,junit,markdown,har,html',
      '--sign-key',
      file('sign.pem'),
    ],
    ENV,
  );
  runs.push(run);
  results = JSON.parse(read(OUT, 'results.json'));
  failed = results.checks.find((c) => c.status === 'failed')!;
  finding = failed?.findings.find((f) => f.evidence) as Finding & { evidence: Evidence };
}, 240_000);

afterAll(async () => {
  await gateway?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/** `pagi-conform ARGS` in this process (the dispatcher), its console output kept for the masking scan. */
async function cliInProcess(args: string[]): Promise<CliRun> {
  const out = { stdout: '', stderr: '' };
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out.stdout += `${a.join(' ')}\n`));
  const error = vi
    .spyOn(console, 'error')
    .mockImplementation((...a: unknown[]) => void (out.stderr += `${a.join(' ')}\n`));
  try {
    const outcome = { code: await main(args), ...out };
    runs.push(outcome);
    return outcome;
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe(`a run against the reference gateway with the fault ${FAULT}`, { timeout: 60_000 }, () => {
  it("is NOT CONFORMANT (exit 1) through the fault's own check, with nothing on stderr", () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(results.verdict).toBe('NOT CONFORMANT');
    const fault = findFault(FAULT) as { expectedCheck?: string; requirement?: string };
    const failedNames = results.checks.filter((c) => c.status === 'failed').map((c) => c.checkId);
    expect(failedNames).toContain(fault.expectedCheck);
    failed = results.checks.find((c) => c.status === 'failed' && c.checkId === fault.expectedCheck)!;
    finding = failed.findings.find((f) => f.evidence) as Finding & { evidence: Evidence };
    expect(failed.requirementIds).toContain(fault.requirement);
    expect(finding.evidence.curl).toMatch(/^(PAGI_SIGNATURE=\$\(printf [^\n]*\); )?curl -sS -X POST /);
  });

  it('writes results.json valid against schemas/results.schema.json, with the run facts', () => {
    const ajv = createAjv();
    const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'results.schema.json'), 'utf8')));
    expect(validate(results), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(results.$schema).toBe('https://pagi-conformance.dev/schemas/results.schema.json');
    expect(results.metadata).toMatchObject({
      seed: 7,
      target: { baseUrl: gateway.url, embedded: false },
      profile: { name: 'reference' },
      commandLine: expect.arrayContaining(['--sign-key']),
    });
    expect(results.totals.checks).toBe(results.checks.length);
    expect(results.requirements.find((r) => r.id === failed.requirementIds[0])!.status).toBe('failed');
    expect(results.coverage.checked).toBeGreaterThan(0);
  });

  it('prints progress per operation, the family and operation tables, the failed check with requirement, finding and curl line, and the verdict last, without colour', () => {
    const out = run.stdout;
    expect(out).not.toMatch(/\u001b\[/);
    expect(out).toMatch(
      new RegExp(`✗ ${failed.family}/${failed.operation} +.*1 failed.*\\([0-9]+ checks? done so far: `),
    );
    expect(out).toMatch(/^ {2}family +passed +failed +waived +skipped +n\/a +total$/m);
    expect(out).toMatch(/^ {2}operation +passed +failed +waived +skipped +n\/a +total$/m);
    expect(out).toContain(
      `✗ ${failed.operation}/${failed.checkId} [${failed.severity}] ${failed.requirementIds.join(' ')}`,
    );
    expect(out).toContain(`${finding.code} ${finding.location.pointer}: `);
    expect(out).toContain(finding.evidence.curl);
    expect(out).toMatch(/reports: .*results\.json.*junit\.xml.*summary\.md.*exchanges\.har.*report\.html\n/);
    expect(out.trimEnd().split('\n').at(-1)).toBe(`verdict: NOT CONFORMANT (${results.verdictReasons.join(' ')})`);
  });

  it('writes junit.xml with one testcase per check, requirement ids and severity in its system-out, findings and evidence in the failure', () => {
    const xml = read(OUT, 'junit.xml');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (n) => ['testsuite', 'testcase', 'property'].includes(n),
    }).parse(xml);
    const cases = doc.testsuites.testsuite.flatMap((s: { testcase: unknown[] }) => s.testcase);
    expect(cases).toHaveLength(results.checks.length);
    expect(Number(doc.testsuites.failures)).toBe(results.totals.byStatus.failed);
    const testcase = cases.find(
      (c: { name: string; classname: string }) =>
        c.name === failed.checkId && c.classname === `${failed.family}.${failed.operation}`,
    );
    expect(testcase['system-out']).toContain(
      `requirements: ${failed.requirementIds.join(' ')}\nseverity: ${failed.severity}\n`,
    );
    expect(testcase.failure.message).toContain(`(${failed.requirementIds.join(', ')})`);
    expect(testcase.failure['#text']).toContain(`${finding.code} ${finding.title}`);
    expect(testcase.failure['#text']).toContain(`reproduce: ${finding.evidence.curl}`);
  });

  it('writes summary.md with the failed check, its requirement, its finding and its evidence', () => {
    const md = read(OUT, 'summary.md');
    expect(md).toMatch(/^## ❌ PAGI conformance: NOT CONFORMANT/);
    expect(md).toContain(
      `| \`${failed.operation}/${failed.checkId}\` | ${failed.requirementIds.join(' ')} | ${failed.severity} |`,
    );
    expect(md).toContain(`\`\`\`sh\n${finding.evidence.curl.slice(0, 200)}`);
    expect(md.replace(/(`{3,})[^\n]*\n[\s\S]*?\n\1/g, '')).not.toMatch(/<script/i);
  });

  it('writes exchanges.har (HAR 1.2) holding every exchange, the failed check and requirement on its exchange', () => {
    const har = JSON.parse(read(OUT, 'exchanges.har'));
    const validate = createAjv().compile(harSchema);
    expect(validate(har), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    const outgoing = har.log.entries.filter((e: { _pagi: { incoming?: boolean } }) => !e._pagi.incoming);
    expect(outgoing).toHaveLength(results.totals.exchanges);
    expect(har.log.entries.length).toBeGreaterThan(outgoing.length); // the notifications the kit received
    const entry = har.log.entries.find(
      (e: { _pagi: { exchangeId: string } }) => e._pagi.exchangeId === finding.location.exchangeId,
    );
    expect(entry.request.postData.text).toBe(finding.evidence.request.body);
    expect(entry.response.status).toBe(finding.evidence.response!.status);
    expect(entry.comment).toContain(`failed: ${failed.operation}/${failed.checkId} ${failed.requirementIds.join(' ')}`);
  });

  it('writes report.html: self-contained, header facts, the failed check under its requirement, results.json embedded exactly', () => {
    const html = read(OUT, 'report.html');
    const { document } = new JSDOM(html).window;
    expect(document.querySelector('#verdict')!.textContent).toBe('NOT CONFORMANT');
    const facts = document.querySelector('.facts')!.textContent!;
    for (const fact of [
      gateway.url,
      'reference',
      results.metadata.kitVersion,
      results.metadata.spec.digest,
      results.metadata.startedAt,
      `${results.coverage.checked} of ${results.coverage.testable}`,
    ])
      expect(facts).toContain(fact);
    expect([...document.querySelectorAll('script')].map((s) => s.id || 'main')).toEqual([
      'pagi-results',
      'pagi-seal',
      'main',
    ]);
    expect(document.querySelectorAll('[src], link, img, iframe, object')).toHaveLength(0);
    expect(html).not.toMatch(
      /url\(|@import|https?:\/\/(?!pagi-conformance\.dev\/schemas\/)[^"'<\s]*\.(js|css|woff2?|png|svg)/,
    );
    expect(JSON.parse(document.querySelector('#pagi-results')!.textContent!)).toEqual(results);
    const group = [...document.querySelectorAll('tbody.req')].find(
      (g) => g.querySelector('.rid')!.textContent === failed.requirementIds[0],
    )!;
    const row = [...group.querySelectorAll('tr.check')].find(
      (r) => r.querySelector('summary')!.textContent === `${failed.operation}/${failed.checkId}`,
    )!;
    expect(row.getAttribute('data-status')).toBe('failed');
  });

  it('verify: untouched with the signing key (exit 0); edited, or another key (exit 1); no report named (exit 2)', async () => {
    const report = path.join(OUT, 'report.html');
    fs.writeFileSync(
      file('edited.html'),
      fs.readFileSync(report, 'utf8').replace('"status":"failed"', '"status":"passed"'),
    );
    const good = await cliInProcess(['verify', report, '--public-key', file('sign.pub')]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/signature: a valid Ed25519 signature of the sealed digests by the given public key/);
    expect(good.stdout.trimEnd().split('\n').at(-1)).toBe(`${report}: report: untouched`);
    const edited = await cliInProcess(['verify', file('edited.html'), '--public-key', file('sign.pub')]);
    expect(edited).toMatchObject({ code: 1, stdout: expect.stringContaining('results: EDITED') });
    const other = await cliInProcess(['verify', report, '--public-key', file('other.pub')]);
    expect(other).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('signature: INVALID for the given public key'),
    });
    const usage = await cliInProcess(['verify']);
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringMatching(/^pagi-conform: Name one report file/) });
  });

  it('opens in headless Chromium: verdict shown, filtering to failures, evidence expanding, no console error, no request beyond the file', async (ctx) => {
    if (!fs.existsSync(CHROMIUM) && !process.env.CI)
      return ctx.skip(`${CHROMIUM} is absent (apt-get install chromium); CI installs it and runs this test`);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
      page.on('pageerror', (e) => errors.push(String(e)));
      const url = pathToFileURL(path.join(OUT, 'report.html')).href;
      await page.goto(url);
      expect(await page.textContent('#verdict')).toBe('NOT CONFORMANT');
      await page.selectOption('#f-status', 'failed');
      const statuses = await page.$$eval('tr.check', (rows) =>
        rows.filter((r) => (r as HTMLElement).offsetParent !== null).map((r) => r.getAttribute('data-status')),
      );
      expect(statuses.length).toBeGreaterThan(0);
      expect(new Set(statuses)).toEqual(new Set(['failed']));
      const row = page
        .locator(`tr.check[data-operation="${failed.operation}"]:visible`, { hasText: failed.checkId })
        .first();
      await row.locator('summary').click();
      await expect.poll(() => row.locator('pre.curl').first().textContent()).toBe(finding.evidence.curl);
      await row.evaluate((e) => e.scrollIntoView({ block: 'start' }));
      fs.mkdirSync(ARTEFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTEFACTS, 'report-failures.png'), fullPage: false });
      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
    } finally {
      await browser.close();
    }
  });
});

describe('the same run in three shards, merged', { timeout: 60_000 }, () => {
  let merged: ResultsDocument;

  beforeAll(async () => {
    // One shard after the other: the machine has two cores and each shard is a whole kit process.
    for (let i = 1; i <= 3; i++) {
      const args = [
        'run',
        '--target',
        gateway.url,
        '--config',
        file('kit.json'),
        '--out',
        file(`shard${i}`),
        '--seed',
        '7',
        '--shard',
        `${i}/3`,
        '--reporter',
        'json',
      ];
      runs.push(await pagiConform(args, ENV));
    }
    const merge = await pagiConform([
      'merge',
      file('shard1'),
      file('shard2'),
      file('shard3'),
      '--out',
      MERGED,
      '--reporter',
      'console,json,junit,markdown,har,html',
      '--sign-key',
      file('sign.pem'),
    ]);
    runs.push(merge);
    expect(merge.stderr).toBe('');
    merged = JSON.parse(read(MERGED, 'results.json'));
  }, 240_000);

  it('gives the verdict, totals and per-check results of the unsharded run', async () => {
    const view = (c: CheckResult) => ({
      ...c,
      durationMs: 0,
      reason: c.reason,
      findings: c.findings.map((f) => `${f.severity} ${f.code} ${f.location.operation}${f.location.pointer}`),
    });
    expect(merged.verdict).toBe(results.verdict);
    expect(merged.exitCode).toBe(results.exitCode);
    expect(merged.checks.map(view)).toEqual(results.checks.map(view));
    expect(merged.requirements).toEqual(results.requirements);
    expect(merged.coverage).toEqual(results.coverage);
    expect(merged.totals).toEqual(results.totals);
    // Families in different shards each make the observations they share: more requests sent, the same exchanges counted.
    const sent = merged.metadata.shards!.reduce((n, s) => n + s.exchangesSent, 0);
    expect(sent).toBeGreaterThanOrEqual(merged.totals.exchanges);
    expect(merged.metadata.shards!.map((s) => s.shard)).toEqual(['1/3', '2/3', '3/3']);
    expect(merged.metadata.selection.shard).toBeUndefined();
    expect(merged.warnings).toEqual(results.warnings);
    for (const name of ['junit.xml', 'summary.md', 'exchanges.har', 'report.html'])
      expect(fs.existsSync(path.join(MERGED, name)), name).toBe(true);
    expect(
      (await cliInProcess(['verify', path.join(MERGED, 'report.html'), '--public-key', file('sign.pub')])).code,
    ).toBe(0);
  });

  it('refuses an incomplete set of shards (exit 2)', async () => {
    const incomplete = await cliInProcess(['merge', file('shard1'), file('shard3'), '--out', file('incomplete')]);
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr.trim()).toBe('pagi-conform: Shard(s) 2/3 missing: merge needs all 3.');
  });
});

describe('masking', () => {
  /** Every written form of the card numbers, the security code and the secret. */
  function forbidden(): string[] {
    const forms = new Set<string>();
    for (const card of Object.values(CARDS)) {
      const spaced = card.replace(/(\d{4})(?=\d)/g, '$1 ');
      for (const form of [
        card,
        spaced,
        encodeURIComponent(spaced),
        spaced.replace(/ /g, '+'),
        card.replace(/(\d{4})(?=\d)/g, '$1-'),
      ])
        forms.add(form);
    }
    for (const form of [
      SECRET,
      encodeURIComponent(SECRET),
      encodeURIComponent(SECRET).replace(/%20/g, '+'),
      JSON.stringify(SECRET).slice(1, -1),
      SECRET.replace(/&/g, '&amp;').replace(/"/g, '&quot;'),
    ])
      forms.add(form);
    const field = profile.fields.card.securityCode;
    for (const form of [
      `"${field}":"${SECURITY_CODE}"`,
      `\\"${field}\\":\\"${SECURITY_CODE}\\"`,
      `${field}=${SECURITY_CODE}`,
      `<${field}>${SECURITY_CODE}<`,
    ])
      forms.add(form);
    return [...forms];
  }

  function filesUnder(dir: string): string[] {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  }

  it('no card number, security code or secret in any report, HAR, blob, stdout, stderr or the gateway log, in any written form', () => {
    const texts: [string, string][] = [
      ...filesUnder(work)
        .filter((f) => !INPUTS.includes(path.basename(f)))
        .map((f): [string, string] => [f, fs.readFileSync(f, 'utf8')]),
      ...runs.flatMap((r, i): [string, string][] => [
        [`stdout of run ${i}`, r.stdout],
        [`stderr of run ${i}`, r.stderr],
      ]),
      ['gateway log', gateway.log()],
    ];
    expect(texts.length).toBeGreaterThan(20);
    expect(gateway.log()).toMatch(/POST \/v1\/authorise/);
    const leaks = texts.flatMap(([where, text]) =>
      forbidden()
        .filter((form) => text.includes(form))
        .map((form) => `${where}: ${form}`),
    );
    expect(leaks).toEqual([]);
  });
});
