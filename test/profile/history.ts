/** The profiles of the kit's history committed as fixtures (test/profile/fixtures/README.md), read for the tests. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { KIT_ROOT, SPEC_DIR } from '../../core/spec/paths.js';

export const FIXTURES = path.join(KIT_ROOT, 'test', 'profile', 'fixtures');

/** Every historical fixture and the format it is in. */
export const FIXTURE_FORMATS: Readonly<Record<string, number>> = {
  'reference-at-251afd0': 1,
  'reference-at-bf3ecfe': 1,
  'reference-at-d489c9e': 1,
  'sample-hmac-sorted-at-bf3ecfe': 1,
  'reference-at-a2dec85': 2,
  'reference-at-e5f86db': 2,
  'sample-hmac-sorted-at-e5f86db': 2,
  'legacy-sha256-pipe-at-e5f86db': 2,
  'hmac-fields-formfirst-at-e5f86db': 2,
  'reference-at-5d17370': 3,
  'reference-at-c983a7b': 4,
  'reference-at-812aff0': 4,
  'reference-at-e07f403': 4,
};

/** A fixture's file. */
export const fixtureFile = (name: string) => path.join(FIXTURES, `${name}.yaml`);
/** A fixture's text. */
export const fixtureText = (name: string) => fs.readFileSync(fixtureFile(name), 'utf8');
/** A fixture, parsed (a fresh copy). */
export const fixture = (name: string) => parse(fixtureText(name));
/** A profile shipped under spec/profiles, parsed (a fresh copy). */
export const shipped = (name: string) =>
  parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', `${name}.yaml`), 'utf8'));
