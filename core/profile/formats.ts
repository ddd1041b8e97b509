/**
 * The profile formats the kit knows. A profile names its format in `format`; the formats before the first that did
 * (release 0.1.0 and its development commits) are unversioned, numbered here after the history of
 * `schemas/profile.schema.json`: a new number wherever a profile valid the commit before could be refused (a key
 * removed, a key made required). Commits that only added optional keys or values kept the format. The schema of every
 * earlier format is kept under `schemas/profile/format-<n>.schema.json`, exactly as released but for its `$id`, title
 * and `$comment`; the current one is `schemas/profile.schema.json` (its `format` const is the current number).
 */
import { shownValue } from '../mask.js';
import { pointerKeys } from '../yaml.js';
import { didYouMean } from '../config/suggest.js';
import fs from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv, toViolations } from '../spec/ajv.js';
import { SCHEMA_BASE, SCHEMAS_DIR } from '../spec/paths.js';
import { kitSchemaSet } from '../spec/validators.js';

/** One profile format. */
export interface ProfileFormat {
  /** The format's number (`format` in a profile from format 5 on). */
  number: number;
  /** Kit release the format belongs to. */
  release: string;
  /** Commits of the kit whose profile schema accepts this format's profiles, oldest first (the first brought it). */
  commits: readonly string[];
  /** Whether the format's profiles carry `format` (false: recognised by validation against the kept schema). */
  versioned: boolean;
  /** What the format changed from the one before (CHANGELOG.md says more). */
  summary: string;
}

/** Every format, oldest first; the last is the current one. */
export const PROFILE_FORMATS: readonly ProfileFormat[] = [
  {
    number: 1,
    release: '0.1.0',
    commits: ['251afd0', 'bf3ecfe', 'd489c9e'],
    versioned: false,
    summary:
      'the first format (bf3ecfe allowed refunds.referenceId.failedItems omitted, d489c9e added the optional responseFields)',
  },
  {
    number: 2,
    release: '0.1.0',
    commits: ['a2dec85', 'e5f86db'],
    versioned: false,
    summary:
      'refusal forms per operation, APM state after the issuer page and fixed-width card masks required; one-value settings removed; secretScope moved to the gateway configuration',
  },
  {
    number: 3,
    release: '0.1.0',
    commits: ['5d17370'],
    versioned: false,
    summary: 'one-value settings itemAmount (review, cancel, refund) and payout.replay removed',
  },
  {
    number: 4,
    release: '0.1.0',
    commits: ['c983a7b', '812aff0', 'e07f403'],
    versioned: false,
    summary: 'notifications.acknowledgement.bodyIgnored removed (812aff0 brought in the optional responseFields)',
  },
  {
    number: 5,
    release: '0.2.0',
    commits: [],
    versioned: true,
    summary: 'the format names itself: format: 5 required',
  },
  {
    number: 6,
    release: '0.2.0',
    commits: [],
    versioned: true,
    summary:
      'every point may be left out, meaning not stated: a run judges no check that needs it (not applicable, naming the point)',
  },
  {
    number: 7,
    release: 'unreleased',
    commits: [],
    versioned: true,
    summary:
      'the point limits.maxFieldLength (the longest field value the gateway accepts): a profile of an earlier format leaves it unstated',
  },
];

const CURRENT_SCHEMA_ID = `${SCHEMA_BASE}profile.schema.json`;

/** The current format's number: the `format` const of schemas/profile.schema.json. */
export const CURRENT_PROFILE_FORMAT: number = (() => {
  const schema = kitSchemaSet().documents.get(CURRENT_SCHEMA_ID);
  const value: unknown = schema?.properties?.format?.const;
  if (typeof value !== 'number') throw new Error('schemas/profile.schema.json has no format const');
  return value;
})();

/** The format of a number (undefined when the kit knows no such format). */
export function profileFormat(number: number): ProfileFormat | undefined {
  return PROFILE_FORMATS.find((f) => f.number === number);
}

/** How a message names a format: `format 1 (unversioned, kit 0.1.0)`, `format 5`. */
export function formatLabel(number: number): string {
  const f = profileFormat(number);
  return f && !f.versioned ? `format ${number} (unversioned, kit ${f.release})` : `format ${number}`;
}

/** The kept schema file of an earlier format (relative to the kit's root). */
export function keptSchemaFile(number: number): string {
  return path.posix.join('schemas', 'profile', `format-${number}.schema.json`);
}

const kept = new Map<number, ValidateFunction>();

/** The validator of an earlier format's kept schema (compiled on first use: only older profiles need it). */
function keptValidator(number: number): ValidateFunction {
  let fn = kept.get(number);
  if (!fn) {
    const file = path.join(SCHEMAS_DIR, 'profile', `format-${number}.schema.json`);
    fn = createAjv().compile(JSON.parse(fs.readFileSync(file, 'utf8')));
    kept.set(number, fn);
  }
  return fn;
}

/** The value at a JSON pointer's keys, or undefined. */
export function valueAt(value: unknown, keys: readonly string[]): unknown {
  let at = value;
  for (const k of keys) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
  return at;
}

/**
 * Schema violations of a profile as `pointer: message`, with the unknown key (and the closest of `knownKeys`, the
 * keys the mapping at a pointer may hold), or the allowed values, or the value seen (masked: a card number, a secret).
 */
export function violationLines(
  errors: Parameters<typeof toViolations>[0],
  value: unknown,
  knownKeys: (keys: readonly string[]) => readonly string[] = () => [],
): string[] {
  return toViolations(errors).map((v) => {
    const keys = pointerKeys(v.instancePath);
    const seen = valueAt(value, keys);
    const extra = v.params.additionalProperty
      ? ` (${String(v.params.additionalProperty)}${didYouMean(String(v.params.additionalProperty), knownKeys(keys))})`
      : Array.isArray(v.params.allowedValues)
        ? ` (${(v.params.allowedValues as unknown[]).map(String).join(', ')}; found ${shownValue(seen, keys.at(-1))})`
        : keys.length && seen !== undefined && v.keyword !== 'required'
          ? ` (found ${shownValue(seen, keys.at(-1))})`
          : '';
    return `${v.instancePath || '/'}: ${v.message}${extra}`;
  });
}

/** The problems of a value as a profile of an earlier format (`pointer: message`), empty when it is one. */
export function problemsInFormat(value: unknown, number: number): string[] {
  const validate = keptValidator(number);
  if (validate(value)) return [];
  return violationLines(validate.errors, value);
}

/** The unversioned formats, newest first. */
function unversioned(): ProfileFormat[] {
  return PROFILE_FORMATS.filter((f) => !f.versioned).reverse();
}

/** What validation against the kept schemas says about a profile without `format`. */
export type Recognition =
  /** Valid in `format` (the newest match: the fewest steps), and also in `also` (older ones, when several match). */
  | { format: number; also: number[] }
  /** Valid in none: the format with the fewest problems, and those problems. */
  | { format: undefined; closest: number; problems: string[] };

/**
 * Recognise the unversioned format of a profile without `format` by validating it against each kept schema. When
 * several accept it the newest wins: it reads the profile as the most recent kit that accepted it did, with the
 * fewest migration steps. (No two formats 1-4 overlap: each step removed or required a key the other refuses.)
 */
export function recogniseFormat(value: unknown): Recognition {
  const results = unversioned().map((f) => ({ format: f.number, problems: problemsInFormat(value, f.number) }));
  const matches = results.filter((r) => r.problems.length === 0).map((r) => r.format);
  if (matches.length) return { format: matches[0]!, also: matches.slice(1) };
  const closest = results.reduce((best, r) => (r.problems.length < best.problems.length ? r : best));
  return { format: undefined, closest: closest.format, problems: closest.problems };
}
