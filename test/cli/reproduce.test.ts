/**
 * `pagi-conform reproduce` and the curl lines with shell variables: a run against `pagi-conform serve --fault
 * direct-currency-lower-case` fails `fieldFormatsFollowConventions` on the direct payment; reproduce runs that check
 * again with the run's seed and the config's test data and fails it again; the curl line of the check, run by bash
 * with PAGI_CARD and PAGI_CVC exported, gets the answer the run got (and without them, a different one). No card
 * number, security code or secret is printed or written anywhere.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/model.js';
import { pagiConform, serve, type CliRun, type ServeProcess } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const CARD = '4111111111111111';
const CVC = '123';
const SECRET = 'reference-secret-0001';
const CHECK = 'fieldFormatsFollowConventions';

let gateway: ServeProcess;
let dir: string;
let config: string;
let run: CliRun;
let results: RunResult;

function bash(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', script], { env: { PATH: process.env.PATH, ...env }, timeout: 30_000 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
}

/** The answer without what differs from one payment to the next: the gateway's new ids and the signature over them. */
function stable(body: string): string {
  return body.replace(/<(transaction_id|recurring_id|encryption_data)>[^<]*<\/\1>/g, '<$1/>');
}

describe('reproduce a failed check of a run against serve --fault', { timeout: 180_000 }, () => {
  dir = tempDir('pagi-reproduce-test-');
  beforeAll(async () => {
    gateway = await serve(['--fault', 'direct-currency-lower-case']);
    config = path.join(dir, 'pagi.yaml');
    fs.writeFileSync(
      config,
      `merchantId: M10001\naccountId: A20001\ncards:\n  approve: "${CARD}"\n  decline: "4000000000000002"\ncardSecurityCode: "${CVC}"\n`,
    );
    run = await pagiConform(
      [
        'run',
        '--target',
        gateway.url,
        '--config',
        config,
        '--only',
        `authoriseDirect/${CHECK}`,
        '--seed',
        '31',
        '--out',
        path.join(dir, 'run'),
        '--reporter',
        'console,json',
      ],
      { PAGI_SECRET: SECRET },
    );
    results = JSON.parse(fs.readFileSync(path.join(dir, 'run', 'results.json'), 'utf8')) as RunResult;
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('the run fails the check, prints its seed and a curl line with $PAGI_CARD, $PAGI_CARD_MONTH, $PAGI_CARD_YEAR and $PAGI_CVC instead of ***', () => {
    const failed = results.checks.find((c) => c.checkId === CHECK && c.operation === 'authoriseDirect');
    expect(failed?.status).toBe('failed');
    expect(run.stdout).toMatch(/; seed: 31; /);
    const curl = failed!.findings.find((f) => f.evidence)!.evidence!.curl;
    expect(curl).toContain(`"card_number":'"\\"$PAGI_CARD\\""'`);
    expect(curl).toContain(`"security_code":'"\\"$PAGI_CVC\\""'`);
    expect(curl).toContain(`"expiration_month":'"\\"$PAGI_CARD_MONTH\\""'`);
    expect(curl).toContain(`"expiration_year":'"\\"$PAGI_CARD_YEAR\\""'`);
    expect(curl).not.toMatch(/"(card_number|security_code|expiration_month|expiration_year)":"\*\*\*"/);
    // The reference profile signs sha256 over the listed values with the secret appended.
    expect(curl).toMatch(
      /^PAGI_SIGNATURE=\$\(printf '%s' 'M10001A20001PAGI-[^']*USD111\.89'''"\$PAGI_SECRET" \| sha256sum \| cut -d' ' -f1\); curl -sS -X POST /,
    );
    expect(curl).toContain(`"encryption_data":'"\\"$PAGI_SIGNATURE\\""'`);
    expect(run.stdout).toContain(curl);
  });

  it('reproduce CHECK@operation fails the check again, with the seed of the run and the test data of the config', async () => {
    const again = await pagiConform(
      ['reproduce', path.join(dir, 'run', 'results.json'), `${CHECK}@authoriseDirect`, '--config', config],
      { PAGI_SECRET: SECRET },
    );
    expect(again.stderr).toBe('');
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(
      new RegExp(
        `^reproducing ${CHECK}@authoriseDirect of .*: target ${gateway.url.replace(/[.]/g, '\\.')}, seed 31, profile reference$`,
        'm',
      ),
    );
    expect(again.stdout).toMatch(new RegExp(`^ {2}authoriseDirect/${CHECK}: failed \\(in the run: failed\\)$`, 'm'));
    expect(again.stdout).toMatch(/FIELD_FORMAT \/currency: expected a value of the form .* received "usd"/);
    expect(again.stdout).toMatch(/^reproduced: 1 of 1 fail again$/m);
    for (const text of [again.stdout, run.stdout, fs.readFileSync(path.join(dir, 'run', 'results.json'), 'utf8')]) {
      expect(text).not.toContain(CARD);
      expect(text).not.toContain(SECRET);
      expect(text).not.toMatch(/"security_code":"123"/);
    }
  });

  it('reproduce names what is wrong: no such check, unreadable results (exit 2)', async () => {
    const none = await pagiConform(['reproduce', path.join(dir, 'run', 'results.json'), 'noSuchCheck']);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringMatching(/has no result of noSuchCheck/) });
    const missing = await pagiConform(['reproduce', path.join(dir, 'nothing.json'), CHECK]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Cannot read .*nothing\.json as results\.json: ENOENT/),
    });
  });

  it('the curl line, with PAGI_CARD, PAGI_CARD_MONTH, PAGI_CARD_YEAR, PAGI_CVC and PAGI_SECRET exported, computes $PAGI_SIGNATURE and gets the answer the run got', async () => {
    const failed = results.checks.find((c) => c.checkId === CHECK && c.operation === 'authoriseDirect')!;
    const evidence = failed.findings.find((f) => f.evidence)!.evidence!;
    // The expiry the kit sends with its test cards (engine/sample.ts): December, three years ahead.
    const expiry = { PAGI_CARD_MONTH: '12', PAGI_CARD_YEAR: String(new Date().getUTCFullYear() + 3) };
    const answer = await bash(evidence.curl, { PAGI_CARD: CARD, PAGI_CVC: CVC, PAGI_SECRET: SECRET, ...expiry });
    expect(answer).toContain('<currency>usd</currency>');
    expect(stable(answer)).toBe(stable(evidence.response!.bodyExcerpt));
    const unset = await bash(evidence.curl, { PAGI_CARD: CARD, PAGI_CVC: CVC, ...expiry });
    expect(stable(unset)).not.toBe(stable(evidence.response!.bodyExcerpt));
  });
});
