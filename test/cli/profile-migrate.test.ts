/**
 * `pagi-conform profile migrate` and `profile validate` with profiles of earlier formats, in this process (the
 * dispatcher): what they print, what they write and their exit codes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { main } from '../../cli/main.js';
import { profileProblems } from '../../core/profile/load.js';
import { EXIT } from '../../core/types/errors.js';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { fixtureFile, fixtureText, shipped } from '../profile/history.js';
import { tempDir } from '../support/temp.js';

const tmp = tempDir('pagi-migrate-cli-');
const OLD = path.relative(process.cwd(), fixtureFile('sample-hmac-sorted-at-bf3ecfe'));

/** `pagi-conform ARGS` in this process: its exit code and what it printed (console and process.stdout). */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out.stdout += `${a.join(' ')}\n`));
  const error = vi
    .spyOn(console, 'error')
    .mockImplementation((...a: unknown[]) => void (out.stderr += `${a.join(' ')}\n`));
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.stdout += String(chunk);
    return true;
  });
  try {
    return { code: await main(args), ...out };
  } finally {
    log.mockRestore();
    error.mockRestore();
    write.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('pagi-conform profile migrate', () => {
  it('writes a valid profile of the current format and prints every change: added, dropped with the reason, moved', async () => {
    const out = path.join(tmp, 'migrated.yaml');
    const run = await cli(['profile', 'migrate', OLD, '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${OLD}: format 1 (unversioned, kit 0.1.0) → format 7, 4 keys added, 13 dropped, 1 moved`);
    expect(lines).toContain(
      '  format 1 → 2 (a2dec85: refusal forms per operation, APM state after the issuer page, fixed-width card masks; one-value settings removed; secretScope to the gateway configuration):',
    );
    expect(lines).toContain(
      '    dropped  requestMedia.charset ("utf-8"): its only value is now the format\'s rule: request bodies are UTF-8',
    );
    expect(lines.filter((l) => l.startsWith('    dropped  '))).toHaveLength(13);
    expect(lines.filter((l) => l.startsWith('    added    '))).toHaveLength(4);
    expect(lines.find((l) => l.startsWith('    moved    '))).toMatch(
      /^ {4}moved {4}signature\.secretScope \("merchant"\) → the gateway configuration .*: .*set secretScope: merchant in the gateway configuration/,
    );
    expect(lines.at(-1)).toBe(
      `wrote ${out}: a valid profile of format 7 (only the changed keys edited, the rest as written)`,
    );
    expect(profileProblems(parse(fs.readFileSync(out, 'utf8')))).toEqual([]);
    // The written file is read as it is: no deprecation line any more; format 7's point is not stated.
    const validate = await cli(['profile', 'validate', out]);
    expect(validate).toEqual({
      code: EXIT.ok,
      stdout: `${out}: valid profile (schemas/profile.schema.json); 1 point not stated\n  not stated: /limits/maxFieldLength\n`,
      stderr: '',
    });
  });

  it('without --out writes the profile to standard output and the changes to standard error', async () => {
    const run = await cli(['profile', 'migrate', OLD]);
    expect(run.code).toBe(EXIT.ok);
    expect(profileProblems(parse(run.stdout))).toEqual([]);
    expect(run.stderr).toMatch(/^.*format 1 \(unversioned, kit 0\.1\.0\) → format 7/);
    expect(run.stderr).toMatch(/a valid profile of format 7 written to standard output/);
  });

  it('may rewrite the file in place, and leaves a current profile as it is', async () => {
    const file = path.join(tmp, 'in-place.yaml');
    fs.writeFileSync(file, fixtureText('reference-at-c983a7b'));
    expect((await cli(['profile', 'migrate', file, '--out', file])).code).toBe(EXIT.ok);
    const migrated = fs.readFileSync(file, 'utf8');
    expect(migrated).toBe(
      fixtureText('reference-at-c983a7b').replace(/^name:/m, (m) => `${migrated.match(/^format: .*$/m)![0]}\n${m}`),
    );
    const again = await cli(['profile', 'migrate', file, '--out', path.join(tmp, 'copy.yaml')]);
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toBe(`${file}: already a profile of format 7; nothing to migrate\n`);
    expect(fs.readFileSync(path.join(tmp, 'copy.yaml'), 'utf8')).toBe(migrated);
  });

  it('exits 1 with each problem for a profile of no known format, writing nothing', async () => {
    const broken = parse(fixtureText('reference-at-bf3ecfe'));
    broken.limits.maxBodyBytes = 'big';
    const file = path.join(tmp, 'broken.yaml');
    fs.writeFileSync(file, JSON.stringify(broken));
    const out = path.join(tmp, 'never.yaml');
    const run = await cli(['profile', 'migrate', file, '--out', out]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toContain(
      `${file}: NOT MIGRATED: not a valid profile of any format the kit knows (closest: format 1 (unversioned, kit 0.1.0)) (1 problem):\n  - ${file}:1:${JSON.stringify(broken).indexOf('"big"') + 1}: limits.maxBodyBytes must be integer (found 'big')`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('exits 2 for a format newer than the kit, a missing file, a second file or an unknown flag', async () => {
    const newer = path.join(tmp, 'newer.yaml');
    fs.writeFileSync(newer, JSON.stringify({ ...shipped('reference'), format: 8 }));
    const refused = await cli(['profile', 'migrate', newer]);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toBe(
      `pagi-conform: ${newer} is in profile format 8, newer than the formats this kit reads (1 to 7): it was written for a later pagi-conformance; upgrade the kit, or use a profile of format 7 (CHANGELOG.md lists the formats).\n`,
    );
    expect((await cli(['profile', 'validate', newer])).code).toBe(EXIT.usage);
    const missing = await cli(['profile', 'migrate', path.join(tmp, 'absent.yaml')]);
    expect(missing).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringMatching(/Cannot read .*absent\.yaml: ENOENT/),
    });
    expect((await cli(['profile', 'migrate', OLD, OLD])).code).toBe(EXIT.usage);
    const typo = await cli(['profile', 'migrate', OLD, '--ot', 'x.yaml']);
    expect(typo.code).toBe(EXIT.usage);
    expect(typo.stderr).toMatch(
      /Unknown option '--ot'; did you mean '--out'\? Run 'pagi-conform profile migrate --help'/,
    );
  });

  it('--help names the flags of the options table and the exit codes', async () => {
    const help = await cli(['profile', 'migrate', '--help']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toMatch(/^usage: pagi-conform profile migrate FILE \[--out FILE\]/);
    expect(help.stdout).toMatch(/--out FILE +File the migrated profile is written to/);
    expect(help.stdout).toMatch(/exit codes: 0 written/);
  });
});

describe('pagi-conform profile validate with a profile of an earlier format', () => {
  it('is valid once migrated in memory, and says so in one deprecation line', async () => {
    const run = await cli(['profile', 'validate', OLD]);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toBe(
      `${OLD}: valid profile of format 1 (unversioned, kit 0.1.0), read as format 7 (schemas/profile.schema.json); 1 point not stated\n  not stated: /limits/maxFieldLength\n`,
    );
    expect(run.stderr).toBe(
      `pagi-conform: warning: ${OLD} is a profile of format 1 (unversioned, kit 0.1.0), migrated in memory to format 7 (4 keys added, 13 dropped, 1 moved); rewrite it with 'pagi-conform profile migrate ${OLD} --out ${OLD}'\n`,
    );
  });
});

describe('profile formats 6 and 7: points not stated', () => {
  const reference = fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8');
  // Format 7 added the point limits.maxFieldLength: a profile of an earlier format cannot hold it.
  const withoutLength = reference.replace(/^ {2}maxFieldLength: .*\n/m, '');

  it.each([5, 6])(
    'migrate takes a complete format-%i profile to format 7 changing nothing but the number; the new point is not stated',
    async (format) => {
      const file = path.join(tmp, `format-${format}.yaml`);
      const earlier = withoutLength.replace(/^format: 7\b/m, `format: ${format}`);
      expect(earlier).not.toBe(withoutLength);
      fs.writeFileSync(file, earlier);
      expect((await cli(['profile', 'validate', file])).code).toBe(EXIT.ok);
      const out = path.join(tmp, `format-${format}-to-7.yaml`);
      const run = await cli(['profile', 'migrate', file, '--out', out]);
      expect(run.code).toBe(EXIT.ok);
      expect(run.stdout.split('\n')[0]).toBe(`${file}: format ${format} → format 7, 1 key added, 0 dropped, 0 moved`);
      expect(fs.readFileSync(out, 'utf8')).toBe(withoutLength);
      const validate = await cli(['profile', 'validate', out]);
      expect(validate.stdout).toBe(
        `${out}: valid profile (schemas/profile.schema.json); 1 point not stated\n  not stated: /limits/maxFieldLength\n`,
      );
    },
  );

  it('validate counts and names the points a profile leaves out', async () => {
    const value = parse(reference);
    delete value.statusValues.payment_status.captured;
    delete value.errors.kinds.badSignature.code;
    delete value.batch.itemFailures.overCapture;
    const file = path.join(tmp, 'partial.yaml');
    fs.writeFileSync(file, stringify(value));
    const run = await cli(['profile', 'validate', file]);
    expect(run).toEqual({
      code: EXIT.ok,
      stdout: [
        `${file}: valid profile (schemas/profile.schema.json); 4 points not stated`,
        '  not stated: /statusValues/payment_status/captured',
        '  not stated: /batch/itemFailures/overCapture/code',
        '  not stated: /batch/itemFailures/overCapture/message',
        '  not stated: /errors/kinds/badSignature/code',
        '',
      ].join('\n'),
      stderr: '',
    });
    // A point is left out, never emptied: an empty value is still a problem.
    value.statusValues.payment_status.captured = '';
    fs.writeFileSync(file, stringify(value));
    expect((await cli(['profile', 'validate', file])).code).toBe(EXIT.failed);
  });
});
