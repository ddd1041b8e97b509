/**
 * Profiles survive upgrades: the reference profile as it stood at each commit that changed the profile format, given
 * to `run` as it is, is migrated in memory (one deprecation line) and gives the same run as today's reference
 * profile: the same checks, statuses and findings. Runs cost seconds each, so the migrated profiles are compared
 * first and only the distinct ones run; `serve` with an old profile says it once too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURRENT_PROFILE_FORMAT } from '../../core/profile/formats.js';
import { loadProfile, readProfile } from '../../core/profile/load.js';
import type { RunResult } from '../../core/model.js';
import { EXIT } from '../../core/types/errors.js';
import { type CliOutcome, pagiConform, runCli, serve } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { FIXTURE_FORMATS, fixture, fixtureFile, shipped } from './history.js';

/** The commits where schemas/profile.schema.json changed (`git log -- schemas/profile.schema.json`), oldest first. */
const CHANGES = ['bf3ecfe', 'a2dec85', 'd489c9e', 'e5f86db', '5d17370', 'c983a7b', '812aff0', 'e07f403'];
const RUN = ['--reporter', 'json', '--fail-on', 'profile', '--seed', '20261124'];
const TODAY = 'today';
const DEPRECATION = /^pagi-conform: warning: .* is a profile of format \d .*migrated in memory to format \d+/gm;

/** JSON text with object keys sorted: equal for equal data whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
  );
}

/**
 * Today's reference without the optional keys it gained after format 5 began (absent, they mean what the older
 * formats meant) nor the points added since (format 7's limits.maxFieldLength: not stated, as in a migrated
 * profile): the behaviour an older profile can state. Its other values are those of the newest format-4
 * reference (test/profile/migrate.test.ts).
 */
function todaysComparable(): Record<string, unknown> {
  // What the migration wrote (not the profile read, which has the points added since filled: format 7's length).
  const keep = readProfile(fixture('reference-at-e07f403')).migration!.value;
  const prune = (value: unknown, like: unknown): unknown => {
    if (!value || typeof value !== 'object' || Array.isArray(value) || !like || typeof like !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k in (like as object))
        .map(([k, v]) => [k, prune(v, (like as Record<string, unknown>)[k])]),
    );
  };
  return prune(loadProfile('reference').profile, keep) as Record<string, unknown>;
}

/** The historical references grouped by their migrated profile; today's comparable reference heads its own group. */
function groups(): Map<string, string[]> {
  const out = new Map<string, string[]>([[canonical(todaysComparable()), [TODAY]]]);
  for (const commit of CHANGES) {
    const key = canonical(readProfile(fixture(`reference-at-${commit}`)).migration!.value);
    out.set(key, [...(out.get(key) ?? []), commit]);
  }
  return out;
}

/** What must be the same in two runs: every check's status, reason and findings, and the verdict. */
function outcome(run: CliOutcome): unknown {
  const results: RunResult = run.results();
  return {
    verdict: results.verdict,
    checks: results.checks
      .map((c) => ({
        check: `${c.operation}/${c.checkId}`,
        status: c.status,
        severity: c.severity,
        reason: c.reason ?? '',
        findings: c.findings.map((f) => `${f.code} ${f.severity} ${f.requirementIds.join(',')} ${f.title}`),
      }))
      .sort((a, b) => a.check.localeCompare(b.check)),
  };
}

const DISTINCT = [...groups().values()];
let baseline: Promise<CliOutcome> | undefined;
const todaysRun = () => {
  if (baseline) return baseline;
  const file = path.join(tempDir('today-reference'), 'reference.yaml');
  fs.writeFileSync(file, JSON.stringify(todaysComparable()));
  return (baseline = runCli([...RUN, '--profile', file]));
};

describe('the reference profile of each format change, run as it is', () => {
  it('migrates to few distinct profiles: only those run', () => {
    // Today's reference with d489c9e, 812aff0 and e07f403 (the same values); bf3ecfe (its own retry schedule, no
    // responseFields); the profiles branch a2dec85…c983a7b (no responseFields). Today's reference may since have
    // gained optional keys, which makes its group one more.
    expect(DISTINCT.length).toBeGreaterThanOrEqual(3);
    expect(DISTINCT.length).toBeLessThanOrEqual(4);
    expect(DISTINCT.flat().sort()).toEqual([...CHANGES, TODAY].sort());
  });

  for (const group of DISTINCT.filter((g) => !g.includes(TODAY))) {
    const commit = group[0]!;
    it(`reference at ${group.join(', ')}: one deprecation line, and the same run as today's reference`, {
      timeout: 600_000,
    }, async () => {
      const [today, old] = await Promise.all([
        todaysRun(),
        runCli([...RUN, '--profile', fixtureFile(`reference-at-${commit}`)]),
      ]);
      expect(old.stderr.match(DEPRECATION), old.stderr).toHaveLength(1);
      expect(old.stderr).toContain(`is a profile of format ${FIXTURE_FORMATS[`reference-at-${commit}`]} `);
      expect(today.stderr).toBe('');
      expect(old.results().metadata.profile.format).toBe(FIXTURE_FORMATS[`reference-at-${commit}`]);
      expect(today.results().metadata.profile.format).toBe(CURRENT_PROFILE_FORMAT);
      expect(outcome(old)).toEqual(outcome(today));
      expect(old.code).toBe(today.code);
    });
  }
});

describe('a profile of a newer format', () => {
  it('is refused by run and serve before anything starts (exit 2)', { timeout: 120_000 }, async () => {
    const dir = tempDir('pagi-newer-');
    const newer = path.join(dir, 'newer.yaml');
    fs.writeFileSync(newer, JSON.stringify({ ...shipped('reference'), format: CURRENT_PROFILE_FORMAT + 1 }));
    const [run, served] = await Promise.all([
      pagiConform(['run', '--profile', newer, '--reporter', 'json', '--out', path.join(dir, 'never')]),
      pagiConform(['serve', '--port', '0', '--profile', newer]),
    ]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(
      /^pagi-conform: profile .*newer\.yaml is in profile format 8, newer than the formats this kit reads/,
    );
    expect(fs.existsSync(path.join(dir, 'never'))).toBe(false);
    expect(served.code).toBe(EXIT.usage);
    expect(served.stderr).toMatch(/^pagi-conform: profile .*newer\.yaml is in profile format 8/);
  });
});

describe('serve with a profile of an earlier format', () => {
  it('starts with it migrated, after one deprecation line', { timeout: 120_000 }, async () => {
    const gateway = await serve(['--profile', fixtureFile('reference-at-5d17370')]);
    try {
      expect(gateway.log().match(DEPRECATION)).toHaveLength(1);
      expect(gateway.log()).toContain('is a profile of format 3 (unversioned, kit 0.1.0)');
    } finally {
      await gateway.stop();
    }
  });
});
