/**
 * The reporters on a hostile run (no target needed): every format escapes what the target sent, stays well-formed
 * and says what failed; the console colours only a terminal without NO_COLOR; the report's seal catches any edit.
 */
import { generateKeyPairSync } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { consoleReporter } from '../../reporters/console.js';
import { harDocument } from '../../reporters/har.js';
import { reportPage } from '../../reporters/html.js';
import { resultsDocument } from '../../reporters/json.js';
import { junitXml } from '../../reporters/junit.js';
import { markdownSummary, mdCode } from '../../reporters/markdown.js';
import { EMPTY_SEAL, sealPage, verifyReport } from '../../reporters/seal.js';
import { createAjv } from '../../core/spec/ajv.js';
import resultsSchema from '../../schemas/results.schema.json' with { type: 'json' };
import harSchema from './fixtures/har-1.2.schema.json' with { type: 'json' };
import { HOSTILE, hostileExchanges, hostileResult } from './fixtures/hostile.js';

const result = hostileResult();

/** What a console reporter prints for the hostile run on a stream that is (or is not) a terminal. */
async function consoleOutput(isTTY: boolean, env: NodeJS.ProcessEnv): Promise<string> {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const reporter = consoleReporter(stream, env);
  reporter.onRunStart?.({ target: 'http://127.0.0.1:9', profile: 'reference', outDir: 'reports' });
  for (const check of result.checks) reporter.onCheckResult?.(check);
  reporter.onOperationEnd?.('security', 'checkout');
  await reporter.onRunEnd?.(result, { outDir: 'reports', exchanges: [], files: ['/tmp/x/results.json'] });
  return text;
}

describe('console reporter', () => {
  it('prints progress, tables, the failed check with its finding and curl line, the files, and the verdict last; no colour off a terminal', async () => {
    const text = await consoleOutput(false, {});
    expect(text).not.toMatch(/\u001b/);
    expect(text).toMatch(/✗ security\/checkout +1 failed +\(1 check done so far: 1 failed\)/);
    expect(text).toMatch(/^ {2}family +passed +failed +waived +skipped +n\/a +total$/m);
    expect(text).toMatch(/^ {2}security +0 +1 +0 +0 +0 +1$/m);
    expect(text).toMatch(
      /✗ checkout\/freeTextParsesBackExactly \[must\] PAGI-SEC-002\n {6}TEXT_ALTERED \/inputs\/note: expected exactly/,
    );
    expect(text).toContain("curl -sS -X POST 'http://127.0.0.1:9/v1/checkout'");
    expect(text).toContain('\\x00\\x1b[31mred'); // the target's control characters are shown, not sent to the terminal
    expect(text).toMatch(/reports: .*results\.json\n/);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^verdict: NOT CONFORMANT \(1 check\(s\) failed/);
  });

  it('colours a terminal and keeps a running counter there, unless NO_COLOR is set', async () => {
    const tty = await consoleOutput(true, {});
    expect(tty).toMatch(/\u001b\[31m✗/);
    expect(tty).toMatch(/\r\u001b\[K/);
    expect(tty).toContain('… 3 checks:');
    const noColour = await consoleOutput(true, { NO_COLOR: '1' });
    expect(noColour).not.toMatch(/\u001b\[[0-9;]*m/);
    expect(noColour.trimEnd().split('\n').at(-1)).toMatch(/^verdict: NOT CONFORMANT/);
  });
});

describe('JUnit XML', () => {
  const xml = junitXml(result);
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  }).parse(xml);

  it('is well-formed with one testcase per check, requirement ids and severity in its system-out, findings and evidence in the failure', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    const cases = doc.testsuites.testsuite.flatMap((s: { testcase: unknown[] }) => s.testcase);
    expect(cases).toHaveLength(result.checks.length);
    expect(doc.testsuites).toMatchObject({ tests: '3', failures: '1' });
    expect(doc.testsuites.testsuite.reduce((n: number, s: { skipped: string }) => n + Number(s.skipped), 0)).toBe(1);
    const failed = cases.find((c: { name: string }) => c.name === 'freeTextParsesBackExactly');
    expect(failed.classname).toBe('security.checkout');
    expect(failed.properties).toBeUndefined();
    expect(failed['system-out']).toMatch(
      /^requirements: PAGI-SEC-002\nseverity: must\nfails at: must\nstatus: failed\n/,
    );
    expect(failed.failure.message).toMatch(
      /^freeTextParsesBackExactly failed at must on checkout \(PAGI-SEC-002\): TEXT_ALTERED/,
    );
    expect(failed.failure['#text']).toContain('</script><script>alert(1)</script>'); // escaped in the file, exact once parsed
    expect(failed.failure['#text']).toContain("reproduce: curl -sS -X POST 'http://127.0.0.1:9/v1/checkout'");
    expect(failed.failure['#text']).toContain('\\x00\\x1b[31mred'); // XML 1.0 cannot carry control characters
    expect(cases.find((c: { name: string }) => c.name === 'notifications').skipped).toMatch(
      /^skipped: no notification \|/,
    );
  });
});

describe('Markdown summary', () => {
  const md = markdownSummary(result);

  it('lists the failed check with its requirement and finding, with no HTML or Markdown of the target getting through', () => {
    expect(md).toMatch(/^## ❌ PAGI conformance: NOT CONFORMANT/);
    expect(md).toMatch(/\| `checkout\/freeTextParsesBackExactly` \| PAGI-SEC-002 \| must \| TEXT\\_ALTERED/);
    const outsideCode = md.replace(/(`{3,})[^\n]*\n[\s\S]*?\n\1/g, '');
    expect(outsideCode).not.toMatch(/<(script|img)/i);
    expect(outsideCode).not.toMatch(/[^\\]\[link\]/);
    for (const line of outsideCode.split('\n').filter((l) => l.startsWith('| `checkout')))
      expect(line.split(/(?<!\\)\|/).length).toBe(6);
    expect(md).toContain('<details>');
    expect(md).toContain("```sh\ncurl -sS -X POST 'http://127.0.0.1:9/v1/checkout'");
  });

  it('fences code with more backticks than the code holds', () => {
    expect(mdCode('a ```` b')).toMatch(/^`{5}\na ```` b\n`{5}$/);
  });
});

describe('HAR', () => {
  it('is HAR 1.2 and ties the exchange to the failed check and its requirement', () => {
    const har = harDocument(result, hostileExchanges()) as {
      log: { entries: { request: { postData?: { text: string } }; comment: string; _pagi: unknown }[] };
    };
    const validate = createAjv().compile(harSchema);
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    const [entry] = har.log.entries;
    expect(entry!.request.postData!.text).toBe(hostileExchanges()[0]!.evidence.request.body);
    expect(entry!.comment).toContain('failed: checkout/freeTextParsesBackExactly PAGI-SEC-002 TEXT_ALTERED');
    expect(entry!._pagi).toMatchObject({
      exchangeId: 'checkout#1',
      findings: [{ check: 'checkout/freeTextParsesBackExactly', requirementIds: ['PAGI-SEC-002'] }],
    });
  });
});

describe('HTML report', () => {
  const html = sealPage(reportPage(result));

  it('escapes everything from the run: only its own three scripts, the embedded results read back exactly', () => {
    const { document } = new JSDOM(html).window;
    const scripts = [...document.querySelectorAll('script')];
    expect(scripts.map((s) => s.id || s.type || 'main')).toEqual(['pagi-results', 'pagi-seal', 'main']);
    expect(document.querySelectorAll('img, iframe, object, embed, link, [src], [href], [onerror]')).toHaveLength(0);
    expect(JSON.parse(scripts[0]!.textContent!)).toEqual(JSON.parse(JSON.stringify(resultsDocument(result))));
    expect(document.querySelector('#verdict')!.textContent).toBe('NOT CONFORMANT');
    expect(document.querySelector('.facts')!.textContent).toContain(
      HOSTILE.replace('\u0000', '\\x00').replace(/\u001b/g, '\\x1b'),
    );
    const csp = document.querySelector('meta[http-equiv="Content-Security-Policy"]')!.getAttribute('content')!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'/);
  });

  it('draws the requirement matrix; a check expands to its findings and evidence; filters hide the rest', async () => {
    const dom = new JSDOM(html, { runScripts: 'dangerously' });
    const { document } = dom.window;
    const group = [...document.querySelectorAll('tbody.req')].find(
      (g) => g.querySelector('.rid')!.textContent === 'PAGI-SEC-002',
    )!;
    const row = group.querySelector('tr.check')!;
    expect(row.getAttribute('data-status')).toBe('failed');
    const details = row.querySelector('details')!;
    details.open = true;
    details.dispatchEvent(new dom.window.Event('toggle'));
    expect(details.querySelector('pre.curl')!.textContent).toBe(result.checks[1]!.findings[0]!.evidence!.curl);
    expect(details.querySelector('.fmsg')!.textContent).toBe(result.checks[1]!.findings[0]!.message);
    expect(details.querySelectorAll('script, img')).toHaveLength(0);
    const status = document.querySelector<HTMLSelectElement>('#f-status')!;
    status.value = 'failed';
    status.dispatchEvent(new dom.window.Event('change'));
    const visible = [...document.querySelectorAll('tr.check')].filter(
      (r) => !(r as HTMLElement).hidden && !(r.closest('tbody') as HTMLElement).hidden,
    );
    expect(visible.map((r) => r.getAttribute('data-status'))).toEqual(['failed']);
    expect(document.querySelector('#shown')!.textContent).toBe('1 requirements, 1 check results (1 rows) shown');
  });
});

describe('seal and signature', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519').publicKey;
  const page = reportPage(result);
  const signed = sealPage(page, privateKey);
  const unsigned = sealPage(page);

  it('verifies an untouched signed report; an unsigned one is not called untouched', () => {
    expect(page).toContain(EMPTY_SEAL);
    expect(verifyReport(signed, publicKey)).toMatchObject({ ok: true });
    expect(verifyReport(signed).lines.at(-2)).toMatch(
      /^signature: a valid Ed25519 signature of the sealed digests by the public key embedded/,
    );
    expect(verifyReport(unsigned)).toMatchObject({ ok: false });
    expect(verifyReport(unsigned).lines.at(-1)).toMatch(/^report: NOT SIGNED/);
    expect(verifyReport(unsigned).lines.join('\n')).not.toMatch(/untouched/);
  });

  it('catches an edited result, an edited page, another key, a stripped signature and a missing seal', () => {
    const editedResults = signed.replace('"verdict":"NOT CONFORMANT"', '"verdict":"CONFORMANT"');
    expect(editedResults).not.toBe(signed);
    expect(verifyReport(editedResults, publicKey)).toMatchObject({
      ok: false,
      lines: expect.arrayContaining(['results: EDITED (they do not match the sealed digest)']),
    });
    const editedPage = signed.replace('<h1 id="verdict">NOT CONFORMANT</h1>', '<h1 id="verdict">CONFORMANT</h1>');
    expect(verifyReport(editedPage, publicKey)).toMatchObject({
      ok: false,
      lines: expect.arrayContaining(['page: EDITED (it does not match the sealed digest)']),
    });
    expect(verifyReport(signed, other)).toMatchObject({
      ok: false,
      lines: expect.arrayContaining(['signature: INVALID for the given public key']),
    });
    expect(verifyReport(unsigned, publicKey)).toMatchObject({
      ok: false,
      lines: expect.arrayContaining(['signature: none, but a public key was given']),
    });
    expect(verifyReport('<html></html>')).toEqual({
      ok: false,
      lines: ['not a sealed pagi-conform report: the seal is missing'],
    });
  });
});

describe('a finding resting on several exchanges', () => {
  const several = structuredClone(hostileResult());
  const f = several.checks[1]!.findings[0]!;
  const query = {
    ...f.evidence!,
    request: { method: 'POST', url: 'http://127.0.0.1:9/v1/retrieval/trans', headers: {}, body: '{}' },
    curl: "curl -sS -X POST 'http://127.0.0.1:9/v1/retrieval/trans'",
  };
  f.exchanges = [
    { exchangeId: 'checkout#1', evidence: f.evidence! },
    { exchangeId: 'retrievalTrans#2', evidence: query },
  ];
  const exchanges = [
    ...hostileExchanges(),
    {
      id: 'retrievalTrans#2',
      operation: 'retrievalTrans' as const,
      startedAt: '2026-11-22T10:00:02.000Z',
      durationMs: 5,
      evidence: query,
    },
  ];

  it('shows a curl line for each in the console, the Markdown summary and the JUnit failure', async () => {
    const stream = Object.assign(new PassThrough(), { isTTY: false });
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await consoleReporter(stream, {}).onRunEnd?.(several, { outDir: 'reports', exchanges: [], files: [] });
    for (const out of [text, markdownSummary(several), junitXml(several)]) {
      // One curl line per exchange (the JUnit body escapes the quotes).
      const urls = [...out.matchAll(/curl -sS -X POST (?:'|&apos;)(http:\/\/127\.0\.0\.1:9\/v1\/[a-z/]+)/g)].map(
        (m) => m[1],
      );
      expect(new Set(urls)).toEqual(
        new Set(['http://127.0.0.1:9/v1/checkout', 'http://127.0.0.1:9/v1/retrieval/trans']),
      );
    }
  });

  it('links each exchange of the HAR to the finding, and results.json stays valid', () => {
    const har = harDocument(several, exchanges) as {
      log: { entries: { _pagi: { exchangeId: string; findings: { code: string }[] } }[] };
    };
    const linked = har.log.entries
      .filter((e) => e._pagi.findings.some((x) => x.code === f.code))
      .map((e) => e._pagi.exchangeId);
    expect(linked).toEqual(['checkout#1', 'retrievalTrans#2']);
    const ajv = createAjv();
    const validate = ajv.compile(resultsSchema);
    expect(validate(resultsDocument(several)), JSON.stringify(validate.errors)).toBe(true);
  });
});
