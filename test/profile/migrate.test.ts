/**
 * The migration chain: each step's changes (dropped keys with their reasons, moved keys, new keys with the value that
 * keeps the old behaviour), every value that still has a home kept, and the rewrite of the YAML text that edits only
 * the changed keys.
 */
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { CURRENT_PROFILE_FORMAT } from '../../core/profile/formats.js';
import { profileProblems, readProfile } from '../../core/profile/load.js';
import { allChanges, migratedYaml, migrateValue } from '../../core/profile/migrate.js';
import { MIGRATION_STEPS, valueAt, type Json } from '../../core/profile/migrations.js';
import { FIXTURE_FORMATS, fixture, fixtureText, shipped } from './history.js';

/** The changes of one step on a profile of its format, as `kind path`. */
function stepChanges(from: number, profile: Json): string[] {
  return MIGRATION_STEPS.find((s) => s.from === from)!
    .changes(profile)
    .map((c) => `${c.kind} ${c.path}`);
}

/** The lines removed from `a` and inserted into `b` by a longest-common-subsequence line diff. */
function lineDiff(a: string[], b: string[]): { removed: string[]; inserted: string[] } {
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const removed: string[] = [];
  const inserted: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) inserted.push(b[j++]!);
    else removed.push(a[i++]!);
  }
  return { removed, inserted };
}

/** Dotted paths of every leaf (scalar or list) of a value. */
function leaves(value: unknown, at = ''): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return [at];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, at ? `${at}.${k}` : k));
}

describe('migration steps', () => {
  it('format 1 → 2: three keys added, eight one-value or unsupported settings dropped, secretScope moved out', () => {
    expect(stepChanges(1, fixture('reference-at-bf3ecfe'))).toEqual([
      'added fields.cardMask.hiddenWidth',
      'added transitions.afterIssuerPage',
      'added errors.refusalForms',
      'dropped requestMedia.formNestedValues',
      'dropped requestMedia.charset',
      'moved signature.secretScope',
      'dropped batch.sequential',
      'dropped refunds.referenceId.sequenceDigits',
      'dropped refunds.referenceId.scope',
      'dropped checkout.nestedValues',
      'dropped checkout.allParams.encoding',
      'dropped checkout.allParams.values',
    ]);
  });

  it('format 2 → 3 drops itemAmount of review, cancel and refund and payout.replay', () => {
    expect(stepChanges(2, fixture('reference-at-a2dec85'))).toEqual([
      'dropped transitions.review.itemAmount',
      'dropped transitions.cancel.itemAmount',
      'dropped transitions.refund.itemAmount',
      'dropped payout.replay',
    ]);
  });

  it('format 3 → 4 drops notifications.acknowledgement.bodyIgnored; 4 → 5 only adds the format', () => {
    expect(stepChanges(3, fixture('reference-at-5d17370'))).toEqual([
      'dropped notifications.acknowledgement.bodyIgnored',
    ]);
    expect(stepChanges(4, fixture('reference-at-e07f403'))).toEqual([]);
    // The chain ends by writing the current number, whichever format it started from.
    for (const from of [1, 4])
      expect(allChanges(migrateValue(fixture('reference-at-e07f403'), from)).at(-1)).toMatchObject({
        kind: 'added',
        path: 'format',
        value: CURRENT_PROFILE_FORMAT,
      });
  });

  it('says why for every dropped and moved key, and where a moved key lives now', () => {
    const migration = migrateValue(fixture('sample-hmac-sorted-at-bf3ecfe'), 1);
    for (const c of allChanges(migration)) expect(c.reason.length, c.path).toBeGreaterThan(30);
    const moved = allChanges(migration).find((c) => c.kind === 'moved')!;
    expect(moved).toMatchObject({ path: 'signature.secretScope', value: 'merchant' });
    expect(moved.to).toMatch(/gateway configuration/);
    // A value the format no longer states is named as such, not passed over.
    expect(moved.reason).toMatch(/this profile said merchant: set secretScope: merchant in the gateway configuration/);
    const unordered = fixture('reference-at-bf3ecfe');
    unordered.batch.sequential = false;
    expect(allChanges(migrateValue(unordered, 1)).find((c) => c.path === 'batch.sequential')!.reason).toMatch(
      /this profile said false, which no release supported/,
    );
    const bodyRead = fixture('reference-at-5d17370');
    bodyRead.notifications.acknowledgement.bodyIgnored = false;
    expect(
      allChanges(migrateValue(bodyRead, 3)).find((c) => c.path === 'notifications.acknowledgement.bodyIgnored')!.reason,
    ).toMatch(/this profile said false, which no check could observe/);
  });

  it('fills a new key with what the old format did, from the profile itself', () => {
    const settling = fixture('reference-at-bf3ecfe');
    settling.transitions.afterAuthorise.approved = 'captured';
    const { value } = migrateValue(settling, 1);
    expect(valueAt(value, 'transitions.afterIssuerPage')).toEqual({ paid: 'captured', declined: 'declined' });
    expect(valueAt(value, 'fields.cardMask.hiddenWidth')).toBe('perDigit');
    expect(Object.keys(valueAt(value, 'errors.refusalForms') as Json).sort()).toEqual(
      Object.keys(settling.errors.formatByOperation).sort(),
    );
    for (const forms of Object.values(valueAt(value, 'errors.refusalForms') as Json))
      expect(forms).toEqual(['httpError']);
    expect(value.format).toBe(CURRENT_PROFILE_FORMAT);
  });
});

describe.each(Object.entries(FIXTURE_FORMATS))('%s (format %i)', (name, format) => {
  const original = fixture(name);
  const read = readProfile(fixture(name));

  it('migrates to a valid profile of the current format', () => {
    expect(read.problems).toEqual([]);
    expect(read.migration?.from).toBe(format);
    expect(read.migration?.steps.map((s) => s.step.from)).toEqual(
      MIGRATION_STEPS.filter((s) => s.from >= format).map((s) => s.from),
    );
  });

  it('keeps every value that still has a home', () => {
    const gone = allChanges(read.migration!)
      .filter((c) => c.kind !== 'added')
      .map((c) => c.path);
    const kept = leaves(original).filter((leaf) => !gone.some((g) => leaf === g || leaf.startsWith(`${g}.`)));
    expect(kept.length).toBeGreaterThan(250);
    for (const leaf of kept) expect(valueAt(read.profile, leaf), leaf).toEqual(valueAt(original, leaf));
  });

  it('is rewritten in its own text: only the changed keys edited, comments and layout kept', () => {
    const text = fixtureText(name);
    const out = migratedYaml(text, original, read.migration!);
    expect(out.layoutKept).toBe(true);
    // The text holds what the migration made; the profile read from it has format 7's point filled (not stated).
    expect(parse(out.text)).toEqual(read.migration!.value);
    expect(read.unstated).toContain('/limits/maxFieldLength');
    // A line diff: the lines removed are exactly those of the dropped and moved keys (no comment line among them);
    // the lines inserted are the new keys, the format first.
    const { removed, inserted } = lineDiff(text.split('\n'), out.text.split('\n'));
    const changes = allChanges(read.migration!);
    expect(removed.length).toBe(changes.filter((c) => c.kind !== 'added').length);
    for (const line of removed) expect(line).toMatch(/^\s+[A-Za-z]+: [^#]*(#.*)?$/);
    expect(inserted[0]).toMatch(/^format: 7 {2}# migrated from format \d by pagi-conform profile migrate$/);
    expect(inserted.filter((l) => /# added by pagi-conform profile migrate/.test(l)).length).toBe(
      changes.filter((c) => c.kind === 'added').length - 1,
    );
  });
});

describe('the rewrite of the YAML text', () => {
  it('falls back to the yaml library when a change is inside a flow collection (comments kept)', () => {
    const text = fixtureText('reference-at-5d17370').replace(
      / {2}acknowledgement:\n {4}statusMin: 200 .*\n {4}statusMax: 299\n {4}bodyIgnored: true\n/,
      '  acknowledgement: { statusMin: 200, statusMax: 299, bodyIgnored: true }   # flow style\n',
    );
    expect(text).toContain('# flow style');
    const value = parse(text);
    const read = readProfile(value);
    const out = migratedYaml(text, value, read.migration!);
    expect(out.layoutKept).toBe(false);
    // The text holds what the migration made; the profile read from it has format 7's point filled (not stated).
    expect(parse(out.text)).toEqual(read.migration!.value);
    expect(read.unstated).toContain('/limits/maxFieldLength');
    expect(out.text).toContain('# Reference profile of the Payment Acquiring Gateway Interface (PAGI).');
    expect(out.text).toContain('# flow style');
  });

  it('replaces an explicit earlier format number in place', () => {
    const text = fixtureText('reference-at-e07f403').replace(/^name: reference$/m, 'format: 4\nname: reference');
    const value = parse(text);
    const read = readProfile(value);
    const out = migratedYaml(text, value, read.migration!);
    expect(out.layoutKept).toBe(true);
    expect(out.text).toBe(text.replace(/^format: 4$/m, 'format: 7'));
  });

  it('writes nothing but the format into a profile of format 4', () => {
    const text = fixtureText('reference-at-e07f403');
    const out = migratedYaml(text, parse(text), readProfile(parse(text)).migration!);
    expect(out.text.replace(/^format: 7 .*\n/m, '')).toBe(text);
    expect(profileProblems(parseDocument(out.text).toJS())).toEqual([]);
  });

  it('the migrated references differ from today’s only by values their own commit chose', () => {
    // Today's reference as format 5 first had it (later changes of this format add optional keys only).
    // A profile's own `version` changes with every behaviour it adds, so it is no value the format carries over.
    const today = readProfile(fixture('reference-at-e07f403')).profile;
    const current = shipped('reference');
    for (const leaf of leaves(today).filter((l) => l !== 'version'))
      expect(valueAt(current, leaf), leaf).toEqual(valueAt(today, leaf));
    const differences = (name: string) => {
      const migrated = readProfile(fixture(name)).profile;
      return [...new Set([...leaves(today), ...leaves(migrated)])]
        .filter((leaf) => JSON.stringify(valueAt(migrated, leaf)) !== JSON.stringify(valueAt(today, leaf)))
        .sort();
    };
    // responseFields came in on main (d489c9e) while formats 2 to 4 grew on the profiles branch; absent means empty.
    const noResponseFields = ['responseFields.echoNormalised', 'responseFields.omitted'];
    expect(differences('reference-at-251afd0')).toEqual([
      'notifications.retry.initialDelayMs',
      'refunds.referenceId.failedItems',
      ...noResponseFields,
    ]);
    expect(differences('reference-at-bf3ecfe')).toEqual(['notifications.retry.initialDelayMs', ...noResponseFields]);
    for (const name of ['reference-at-a2dec85', 'reference-at-e5f86db', 'reference-at-5d17370', 'reference-at-c983a7b'])
      expect(differences(name), name).toEqual(noResponseFields);
    for (const name of ['reference-at-d489c9e', 'reference-at-812aff0', 'reference-at-e07f403'])
      expect(readProfile(fixture(name)).profile, name).toEqual(today);
  });
});
