/**
 * The hostile-target matrix: the kit run against a target misbehaving in one way per mode (test/hostile/server.ts).
 * Every mode asserts the exit code, a verdict that is never CONFORMANT, every selected report written and readable,
 * no secret, card number or security code in any output, no connection to any host but the target, and a memory
 * bound (peak RSS at most 1.25 times that of a clean full run). README.md in this folder lists what each mode adds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ResultsDocument } from '../../reporters/json.js';
import type { Finding } from '../../core/model.js';
import { createAjv } from '../../core/spec/ajv.js';
import { SCHEMAS_DIR } from '../../core/spec/paths.js';
import harSchema from '../reporters/fixtures/har-1.2.schema.json' with { type: 'json' };
import { HOSTILE_ARGS, runKit, type KitRun } from './run.js';
import { SECURITY_CODE, startHostile, type HostileTarget, type Mode } from './server.js';
import { createLimiter } from '../../engine/limiter.js';

/** Peak RSS of a run may be at most this multiple of the clean full run's. */
const RSS_FACTOR = 1.25;

const ajv = createAjv();
const validateResults = ajv.compile(JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'results.schema.json'), 'utf8')));
const validateHar = createAjv().compile(harSchema);

// Two kit processes at once: each loads the kit and vitest, and the machine has two cores.
const kitProcesses = createLimiter(2, 0);
const slot = <T>(task: () => Promise<T>): Promise<T> => kitProcesses.run(task);

/** A card number written with any separators (none, spaces, dashes, dots, …) between its digits. */
function anySeparators(card: string): RegExp {
  return new RegExp(`(?<![0-9])${card.split('').join('[^0-9A-Za-z]{0,3}')}(?![0-9])`);
}

/** Every output of a run: stdout, stderr and each report file. */
function outputs(run: KitRun): [string, string][] {
  const files = fs.existsSync(run.out)
    ? fs.readdirSync(run.out).map((f) => [f, fs.readFileSync(path.join(run.out, f), 'utf8')] as [string, string])
    : [];
  return [['stdout', run.stdout], ['stderr', run.stderr], ...files];
}

/** What the kit must never write, whatever the target sends back. */
function leaks(run: KitRun, target: HostileTarget): string[] {
  const found: string[] = [];
  const patterns: [string, RegExp][] = [
    ['secret', new RegExp(target.secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
    ...target.cards.map((c) => [`card ${c.slice(0, 6)}…`, anySeparators(c)] as [string, RegExp]),
    // As a word: a hex signature may hold the same four digits between letters.
    ['security code', new RegExp(`(?<![0-9A-Za-z*])${SECURITY_CODE}(?![0-9A-Za-z])`)],
  ];
  for (const [name, text] of outputs(run))
    for (const [what, re] of patterns)
      if (re.test(text))
        found.push(`${what} in ${name}: …${text.slice(Math.max(0, text.search(re) - 60), text.search(re) + 40)}…`);
  return found;
}

function findings(results: ResultsDocument): Finding[] {
  return results.checks.flatMap((c) => c.findings);
}

/** The assertions every mode makes; returns the results for the mode's own. */
function assertCommon(
  run: KitRun,
  target: HostileTarget,
  codes: readonly number[],
  cleanRssKb: number,
): ResultsDocument {
  const context = `${target.mode}: exit ${run.code}; stderr: ${run.stderr.slice(-800)}`;
  expect(codes, context).toContain(run.code);
  const files = fs.readdirSync(run.out).sort();
  expect(files, context).toEqual(['exchanges.har', 'junit.xml', 'report.html', 'results.json', 'summary.md']);
  const results = JSON.parse(fs.readFileSync(path.join(run.out, 'results.json'), 'utf8')) as ResultsDocument;
  expect(validateResults(results), JSON.stringify(validateResults.errors?.slice(0, 3))).toBe(true);
  expect(results.verdict).not.toBe('CONFORMANT');
  expect(results.exitCode).toBe(run.code);
  expect(XMLValidator.validate(fs.readFileSync(path.join(run.out, 'junit.xml'), 'utf8'))).toBe(true);
  const har = JSON.parse(fs.readFileSync(path.join(run.out, 'exchanges.har'), 'utf8'));
  expect(validateHar(har), JSON.stringify(validateHar.errors?.slice(0, 3))).toBe(true);
  expect(fs.readFileSync(path.join(run.out, 'summary.md'), 'utf8')).toContain(results.verdict);
  const html = fs.readFileSync(path.join(run.out, 'report.html'), 'utf8');
  expect(html).toContain(results.verdict);
  expect(html.trimEnd()).toMatch(/<\/html>$/);
  expect(run.stdout).toContain(`verdict: ${results.verdict}`);

  expect(leaks(run, target)).toEqual([]);

  // Only the target: no foreign listener saw a connection, and every request the kit made went to the target.
  expect(target.foreignConnections()).toBe(0);
  const origin = new URL(target.url).origin;
  const elsewhere = (
    har.log.entries as { request: { url: string }; _pagi: { incoming?: boolean; notSent?: boolean } }[]
  )
    .filter((e) => !e._pagi.incoming && !e._pagi.notSent && !e.request.url.startsWith(`${origin}/`))
    .map((e) => e.request.url);
  expect(elsewhere).toEqual([]);

  expect(run.rssKb, `peak RSS ${run.rssKb} kB against ${cleanRssKb} kB clean`).toBeLessThanOrEqual(
    cleanRssKb * RSS_FACTOR,
  );
  return results;
}

interface Case {
  mode: Mode;
  /** --only selection: what the mode needs to show its effect. */
  only: string;
  /** Exit codes accepted: 1 when a must check fails; 3 too where the answer is no answer at all (reported as such). */
  codes: readonly number[];
  extra?: (results: ResultsDocument, target: HostileTarget, run: KitRun) => void;
  extraArgs?: string[];
}

const NOT_CONFORMANT = [1] as const;
const NO_ANSWER = [1, 3] as const;

const problems = (r: ResultsDocument) =>
  findings(r)
    .map((f) => f.message)
    .join('\n');

const CASES: Case[] = [
  {
    mode: 'huge-body',
    only: 'media',
    codes: NOT_CONFORMANT,
    extra(results) {
      expect(problems(results)).toContain('exceeded the response size cap');
      const cut = findings(results).find((f) => f.evidence?.response?.truncated)!;
      expect(cut.evidence!.response).toMatchObject({
        bodyBytes: 8 * 1024 * 1024,
        bodySha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(cut.evidence!.response!.bodyExcerpt.length).toBeLessThanOrEqual(4097);
    },
  },
  {
    mode: 'slow-drip',
    only: 'authoriseDirect/responseBodyFormat,capture/responseBodyFormat,checkout/responseBodyFormat',
    codes: NO_ANSWER,
  },
  {
    mode: 'no-answer',
    only: 'authoriseDirect/responseBodyFormat,capture/responseBodyFormat,checkout/responseBodyFormat',
    codes: NO_ANSWER,
  },
  { mode: 'redirects', only: 'responseBodyFormat,successAnsweredWith200,issuerUrlRequestable', codes: NOT_CONFORMANT },
  { mode: 'links-foreign', only: 'authoriseApm,checkout', codes: NO_ANSWER },
  { mode: 'links-file', only: 'authoriseApm,checkout', codes: NO_ANSWER },
  {
    mode: 'xxe',
    only: 'responseBodyFormat,xmlRootIsRespon',
    codes: NOT_CONFORMANT,
    extra: (r) => expect(problems(r)).toContain('DOCTYPE'),
  },
  {
    mode: 'entity-expansion',
    only: 'responseBodyFormat,xmlRootIsRespon',
    codes: NOT_CONFORMANT,
    extra: (r) => expect(problems(r)).toContain('DOCTYPE'),
  },
  {
    mode: 'deep-xml',
    only: 'responseBodyFormat,xmlRootIsRespon',
    codes: NOT_CONFORMANT,
    extra: (r) => expect(problems(r)).toContain('nested deeper than 64 levels'),
  },
  {
    mode: 'deep-json',
    only: 'responseBodyFormat,responseMatchesSchema',
    codes: NOT_CONFORMANT,
    extra: (r) => expect(problems(r)).toContain('nesting deeper than 64 levels'),
  },
  {
    mode: 'million-keys',
    only: 'responseBodyFormat,responseMatchesSchema,checkoutPageHasOneForm',
    codes: NOT_CONFORMANT,
    // Every answer is 4 to 7 MB, read whole (to the cap) to be kept as evidence: on a loaded CI machine, with the other
    // modes' runs beside it, 5 s per exchange was seen to run out before the body was in, so the count was never
    // reached. The bound this mode proves is the count, not a time.
    extraArgs: ['--timeout', '20000'],
    extra: (r) => {
      expect(problems(r)).toContain('more than 20000 members');
      expect(problems(r)).toContain('more than 20000 elements');
    },
  },
  {
    mode: 'checkout-active-content',
    only: 'checkout',
    codes: NOT_CONFORMANT,
    // Markup injected into free text that the page returns altered (an extra input is MARKUP_INJECTED only when it carries the markup).
    extra: (r) => expect(findings(r).map((f) => f.code)).toEqual(expect.arrayContaining(['TEXT_ALTERED'])),
  },
  { mode: 'bad-bytes', only: 'responseBodyFormat', codes: NOT_CONFORMANT },
  { mode: 'huge-headers', only: 'responseBodyFormat', codes: NO_ANSWER },
  {
    mode: 'many-headers',
    only: 'responseBodyFormat',
    codes: NOT_CONFORMANT,
    extra(results) {
      const kept = findings(results).map((f) => Object.keys(f.evidence?.response?.headers ?? {}).length);
      expect(Math.max(...kept)).toBeLessThanOrEqual(100);
    },
  },
  {
    mode: 'compression-bomb',
    only: 'responseBodyFormat',
    codes: NOT_CONFORMANT,
    extra: (r) => expect(problems(r)).toContain('Content-Encoding gzip'),
  },
  {
    mode: 'echo-values',
    only: 'shape,media,conventions',
    codes: NOT_CONFORMANT,
    extra: (r) => expect(findings(r).map((f) => f.code)).toContain('FULL_CARD_NUMBER'),
  },
  { mode: 'echo-keys-headers', only: 'shape,media,conventions', codes: NOT_CONFORMANT },
  {
    mode: 'echo-sent-card',
    only: 'cardFieldsPerProfile,noFullCardNumberInResponse,authoriseDirect/responseBodyFormat,capture/responseBodyFormat',
    codes: NOT_CONFORMANT,
    extra(_results, target, run) {
      const sent = target.echoed();
      // The Luhn-failing number the kit sends on purpose was sent and echoed: in no output, in any written form.
      expect(sent.number.length).toBeGreaterThanOrEqual(2);
      for (const n of sent.number)
        for (const [name, text] of outputs(run)) expect(anySeparators(n).test(text), `${n} in ${name}`).toBe(false);
      // Short values (expiry, security code) are masked where the answer echoed them: whole header values and
      // element texts; the same characters elsewhere stay (the status header of the other answers).
      const har = JSON.parse(fs.readFileSync(path.join(run.out, 'exchanges.har'), 'utf8'));
      const entries = har.log.entries as {
        request: { url: string };
        response: { headers: { name: string; value: string }[]; content: { text?: string } };
      }[];
      const echo = entries.flatMap((e) => e.response.headers.filter((h) => /^x-echo-(expiry|security)/.test(h.name)));
      expect(echo.length).toBeGreaterThan(0);
      expect(echo.filter((h) => h.value !== '***')).toEqual([]);
      const elements = entries.flatMap(
        (e) => e.response.content.text?.match(/<echo_(expiryMonth|expiryYear|securityCode)>[^<]*</g) ?? [],
      );
      expect(elements.length).toBeGreaterThan(0);
      expect(elements.filter((x) => !x.endsWith('>***<'))).toEqual([]);
      const statuses = entries
        .filter((e) => e.request.url.endsWith('/v1/capture'))
        .flatMap((e) => e.response.headers.filter((h) => h.name === 'x-status').map((h) => h.value));
      expect(statuses).toContain('12');
    },
  },
  { mode: 'reset-mid-body', only: 'responseBodyFormat', codes: NO_ANSWER },
  { mode: 'short-body', only: 'responseBodyFormat', codes: NO_ANSWER },
  {
    mode: 'notification-flood',
    only: 'events',
    codes: [3],
    extra(results, target) {
      expect(results.warnings.join(' ')).toMatch(/notification receiver refused [0-9]+ request\(s\)/);
      expect(results.verdictReasons.join(' ')).toContain('could not all be observed');
      expect(findings(results).map((f) => f.code)).toContain('NOTIFICATION_FLOOD');
      const answered = target.flood();
      expect(answered['413']).toBeGreaterThan(0);
      expect(answered['429']).toBeGreaterThan(0);
    },
  },
];

let cleanRssKb = 0;

describe('against a clean target (the reference gateway behind the hostile server)', () => {
  it('is CONFORMANT, and its peak memory is the bound of every hostile mode', { timeout: 300_000 }, async () => {
    const target = await startHostile('clean');
    try {
      const run = await slot(() => runKit(target, HOSTILE_ARGS));
      expect(run.code, run.stderr.slice(-800)).toBe(0);
      expect(leaks(run, target)).toEqual([]);
      expect(target.foreignConnections()).toBe(0);
      cleanRssKb = run.rssKb;
      expect(cleanRssKb).toBeGreaterThan(0);
    } finally {
      await closing(target);
    }
  });
});

/** Close a target, giving up after a while: a hostile server that will not close fails nothing the kit did. */
function closing(target: HostileTarget): Promise<void> {
  return Promise.race([target.close(), new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref())]);
}

describe.concurrent('against a hostile target', () => {
  beforeAll(() => expect(cleanRssKb, 'the clean run measures the memory bound').toBeGreaterThan(0));

  for (const c of CASES) {
    it(`${c.mode}: ${c.codes.join(' or ')}, never CONFORMANT, reports readable, nothing secret, only the target, bounded memory`, {
      timeout: 600_000,
    }, async () => {
      const target = await startHostile(c.mode, { floodCount: 1200 });
      try {
        const run = await slot(() => runKit(target, [...HOSTILE_ARGS, '--only', c.only, ...(c.extraArgs ?? [])]));
        const results = assertCommon(run, target, c.codes, cleanRssKb);
        c.extra?.(results, target, run);
      } finally {
        await closing(target);
      }
    });
  }
});
