/**
 * The profile formats: the table, the kept schemas of the unversioned formats, and how a profile's format is told
 * (by `format`, or by the kept schema that accepts a profile without it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CURRENT_PROFILE_FORMAT,
  PROFILE_FORMATS,
  keptSchemaFile,
  problemsInFormat,
  recogniseFormat,
} from '../../core/profile/formats.js';
import { loadProfile, ProfileFormatError, profileProblems, readProfile } from '../../core/profile/load.js';
import { MIGRATION_STEPS } from '../../core/profile/migrations.js';
import { KIT_ROOT, SPEC_DIR } from '../../core/spec/paths.js';
import { FIXTURE_FORMATS, fixture, shipped as current } from './history.js';

describe('profile formats', () => {
  it('are numbered 1, 2, … up to the format const of schemas/profile.schema.json, one migration step between each two', () => {
    expect(PROFILE_FORMATS.map((f) => f.number)).toEqual(PROFILE_FORMATS.map((_, i) => i + 1));
    expect(PROFILE_FORMATS.at(-1)!.number).toBe(CURRENT_PROFILE_FORMAT);
    expect(MIGRATION_STEPS.map((s) => s.from)).toEqual(PROFILE_FORMATS.slice(0, -1).map((f) => f.number));
    // Versioned formats carry `format`; the unversioned ones came first.
    const firstVersioned = PROFILE_FORMATS.findIndex((f) => f.versioned);
    expect(PROFILE_FORMATS.slice(firstVersioned).every((f) => f.versioned)).toBe(true);
  });

  it('keep the schema of every unversioned format, naming the commit it was taken from', () => {
    for (const f of PROFILE_FORMATS.filter((x) => !x.versioned)) {
      const schema = JSON.parse(fs.readFileSync(path.join(KIT_ROOT, keptSchemaFile(f.number)), 'utf8'));
      expect(schema.$id, keptSchemaFile(f.number)).toBe(
        `https://pagi-conformance.dev/schemas/profile/format-${f.number}.schema.json`,
      );
      expect(schema.$comment).toContain(`commit ${f.commits.at(-1)}`);
      expect(schema.properties.format, 'an unversioned format has no format key').toBeUndefined();
    }
    expect(fs.existsSync(path.join(KIT_ROOT, keptSchemaFile(CURRENT_PROFILE_FORMAT)))).toBe(false);
  });

  it.each(Object.entries(FIXTURE_FORMATS))('%s is recognised as format %i, and as no other', (name, format) => {
    expect(recogniseFormat(fixture(name))).toEqual({ format, also: [] });
  });

  it('every profile the kit ships names the current format', () => {
    const shipped = [
      ...fs
        .readdirSync(path.join(SPEC_DIR, 'profiles'))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => path.join(SPEC_DIR, 'profiles', f)),
      path.join(KIT_ROOT, 'examples', 'vendor-profile.yaml'),
      path.join(KIT_ROOT, 'gateway', 'test', 'fixtures', 'vendor-unsigned-truncating.yaml'),
    ];
    for (const file of shipped) {
      const value = parse(fs.readFileSync(file, 'utf8'));
      expect(value.format, file).toBe(CURRENT_PROFILE_FORMAT);
      expect(loadProfile(file).migration, file).toBeUndefined();
    }
  });

  it('a profile without format that no format accepts is reported against the closest one', () => {
    const broken = fixture('reference-at-bf3ecfe');
    broken.limits.maxBodyBytes = 'big';
    const read = readProfile(broken);
    expect(read.profile).toBeUndefined();
    expect(read).toMatchObject({ problemsOf: 1, closest: true });
    expect(read.problems.join('\n')).toMatch(/\/limits\/maxBodyBytes: must be integer/);
    // A format-4 profile broken the same way is as close to the current format (which also misses its key) as to
    // format 4: the current format's problems are told.
    const unnumbered = fixture('reference-at-e07f403');
    unnumbered.limits.maxBodyBytes = 'big';
    expect(readProfile(unnumbered)).toEqual({
      problems: ["/: must have required property 'format'", "/limits/maxBodyBytes: must be integer (found 'big')"],
      unstated: [],
    });
  });

  it('an explicit earlier number is read as that format; a higher one than the kit knows is refused', () => {
    const read = readProfile({ ...fixture('reference-at-5d17370'), format: 3 });
    expect(read.problems).toEqual([]);
    expect(read.migration?.from).toBe(3);
    expect(readProfile({ ...fixture('reference-at-5d17370'), format: 2 }).problemsOf).toBe(2);
    expect(() => readProfile({ ...current('reference'), format: CURRENT_PROFILE_FORMAT + 1 }, 'vendor.yaml')).toThrow(
      ProfileFormatError,
    );
    expect(() => readProfile({ ...current('reference'), format: CURRENT_PROFILE_FORMAT + 1 }, 'vendor.yaml')).toThrow(
      `vendor.yaml is in profile format ${CURRENT_PROFILE_FORMAT + 1}, newer than the formats this kit reads (1 to ${CURRENT_PROFILE_FORMAT})`,
    );
    expect(profileProblems({ ...current('reference'), format: '5' })).toContain("/format: must be integer (found '5')");
  });

  it('the kept schemas accept each format and refuse the others (no two formats overlap)', () => {
    for (const [name, format] of Object.entries(FIXTURE_FORMATS))
      for (const f of PROFILE_FORMATS.filter((x) => !x.versioned))
        expect(problemsInFormat(fixture(name), f.number).length === 0, `${name} as format ${f.number}`).toBe(
          f.number === format,
        );
  });
});
