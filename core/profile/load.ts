import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { parseYamlText, pointerKeys, yamlPosition } from '../yaml.js';
import { didYouMean } from '../config/suggest.js';
import { SCHEMA_BASE, SCHEMAS_DIR, SPEC_DIR } from '../spec/paths.js';
import { kitValidator } from '../spec/validators.js';
import type { PAGIProfile } from '../types/generated.js';
import {
  CURRENT_PROFILE_FORMAT,
  formatLabel,
  problemsInFormat,
  profileFormat,
  recogniseFormat,
  valueAt,
  violationLines,
} from './formats.js';
import { allChanges, migrateValue, type Migration } from './migrate.js';
import { definedKinds } from './choices.js';
import { notificationSchemaValidator } from './notification-shape.js';
import { ProfileError, ProfileFormatError, UsageError } from '../types/errors.js';
import { completeProfile } from './stated.js';
import type { Json } from './migrations.js';

/** A profile: fills every point the interface document leaves "not shown" (schemas/profile.schema.json). */
export type Profile = PAGIProfile;

/** An error kind of the profile (`errors.kinds`). */
export type ErrorKind = keyof Profile['errors']['kinds'];

/** A loaded, validated profile. */
export interface LoadedProfile {
  profile: Profile;
  file: string;
  /** sha256 of the profile file's bytes. */
  digest: string;
  /** Present when the file is in an earlier format: how it was migrated in memory. */
  migration?: Migration;
  /**
   * JSON pointers of the points the profile leaves out (format 6: not stated). `profile` holds the format's default
   * there; a run reads the profile through `kitProfile(profile, unstated)`, which refuses those reads.
   */
  unstated: string[];
}

export { ProfileError, ProfileFormatError };

function schemaValidator() {
  return kitValidator(`${SCHEMA_BASE}profile.schema.json`);
}

/**
 * Rules a profile must obey that the schema cannot express (listed in the schema's description).
 * Each problem is one sentence naming the profile key.
 */
function consistencyProblems(p: Profile, unstated: ReadonlySet<string> = new Set()): string[] {
  const problems: string[] = [];
  const sig = p.signature;
  if (p.notifications.signature === 'asResponse' && !sig.response.signed) {
    problems.push('notifications.signature is asResponse but signature.response.signed is false');
  }
  if (p.notifications.signature === 'sortedPairs' && sig.request.mode !== 'sortedPairs') {
    problems.push('notifications.signature is sortedPairs but signature.request.mode is not sortedPairs');
  }
  if (p.errors.signed && !sig.response.signed) problems.push('errors.signed is true but responses are not signed');
  if (sig.encoding === 'base64' && sig.caseInsensitiveCompare)
    problems.push('signature.caseInsensitiveCompare must be false with base64');
  const declines = (card: string) =>
    p.payments.declineRules.some((r) => 'cardNumberSuffix' in r && card.endsWith(r.cardNumberSuffix));
  problems.push(...kindProblems(p, unstated));
  const fixed = p.checkout.gatewayFieldValues ?? {};
  for (const name of Object.keys(p.checkout.derivedGatewayFields ?? {}))
    if (Object.hasOwn(fixed, name))
      problems.push(`checkout.derivedGatewayFields.${name} is also in checkout.gatewayFieldValues`);
  for (const [kind, spec] of Object.entries(p.notifications.kinds)) {
    if (!spec.ownShape) continue;
    const compiled = notificationSchemaValidator(spec.ownShape.schema);
    if (compiled instanceof Error)
      problems.push(`notifications.kinds.${kind}.ownShape.schema does not compile: ${compiled.message}`);
  }
  for (const card of p.payments.testCards.decline)
    if (!declines(card)) problems.push(`payments.testCards.decline ${mask(card)} matches no decline rule`);
  for (const card of p.payments.testCards.approve)
    if (declines(card)) problems.push(`payments.testCards.approve ${mask(card)} matches a decline rule`);
  for (const [field, values] of Object.entries(p.statusValues)) {
    // A value the profile does not state is a default: it cannot clash with a value the profile states.
    const list = Object.entries(values as Record<string, string>)
      .filter(([k]) => k !== 'successMessage' && !unstated.has(`/statusValues/${field}/${k}`))
      .map(([, v]) => v);
    if (new Set(list).size !== list.length) problems.push(`statusValues.${field} has a value used for two meanings`);
  }
  for (const [op, t] of Object.entries(p.transitions)) {
    const entry = t as { from?: string[]; refusals?: Record<string, string> };
    // A default `from` (not stated) cannot clash with the refusals the profile states.
    if (unstated.has(`/transitions/${op}/from`)) continue;
    for (const state of entry.from ?? []) {
      if (entry.refusals && state in entry.refusals)
        problems.push(`transitions.${op}: state ${state} is both allowed and refused`);
    }
  }
  // A body that cannot be read selects no variant of /v1/authorise: it is refused as an HTTP error, which the APM
  // payment requires (400), so the direct payment's refusal forms must allow one.
  if (!p.errors.refusalForms.authoriseDirect.includes('httpError'))
    problems.push(
      'errors.refusalForms.authoriseDirect must include httpError (an unreadable /v1/authorise body is refused as the APM payment requires)',
    );
  // Failure types not stated are no list to hold the failure rules' types against (the default is the format's).
  const types = new Set(p.payout.failureTypes);
  if (unstated.has('/payout/failureTypes')) return problems;
  for (const rule of p.payout.failureRules)
    if (!types.has(rule.failureType))
      problems.push(`payout failure type ${rule.failureType} is not in payout.failureTypes`);
  if (p.payout.successFailureType && !types.has(p.payout.successFailureType))
    problems.push('payout.successFailureType is not in payout.failureTypes');
  return problems;
}

/** Every error kind the profile names is one it defines, and each check order lists every defined kind once. */
function kindProblems(p: Profile, unstated: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const defined = new Set(definedKinds(p));
  const named: [string, string][] = [
    ['errors.unknownMerchant', p.errors.unknownMerchant],
    ['requestHeaders.onMissing', p.requestHeaders.onMissing],
    ['payments.token.unknownToken', p.payments.token.unknownToken],
  ];
  for (const [op, wordings] of Object.entries(p.errors.byOperation ?? {}))
    for (const kind of Object.keys(wordings ?? {})) named.push([`errors.byOperation.${op}`, kind]);
  for (const [where, kind] of named)
    if (!defined.has(kind as ErrorKind))
      problems.push(`${where} names the error kind ${kind}, which errors.kinds does not define`);
  // An order not stated is the format default's, which knows only the format's kinds: not judged.
  const orders: [string, readonly string[]][] = unstated.has('/errors/precedence')
    ? []
    : [['errors.precedence', p.errors.precedence]];
  for (const [op, order] of Object.entries(p.errors.precedenceByOperation ?? {}))
    if (order) orders.push([`errors.precedenceByOperation.${op}`, order]);
  for (const [where, order] of orders) {
    const missing = [...defined].filter((k) => !order.includes(k));
    const extra = order.filter((k) => !defined.has(k as ErrorKind));
    if (missing.length || extra.length)
      problems.push(
        `${where} must list every kind of errors.kinds once${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; not defined ${extra.join(', ')}` : ''}`,
      );
  }
  return problems;
}

function mask(card: string): string {
  return card.length > 10 ? `${card.slice(0, 6)}${'*'.repeat(card.length - 10)}${card.slice(-4)}` : '****';
}

let reference: unknown;
/** The keys the reference profile has at a pointer's keys: the names a mistyped key of a profile is matched with. */
function referenceKeys(keys: readonly string[]): string[] {
  reference ??= parseYamlText(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  const at = valueAt(reference, keys);
  return at && typeof at === 'object' && !Array.isArray(at) ? Object.keys(at) : [];
}

/**
 * Every problem of a parsed profile: schema violations (as `pointer: message`, with the value seen, masked, or the
 * key or values concerned) and consistency rules. A profile of the current format that leaves points out is judged
 * completed with the format's defaults (`completed`).
 */
export function profileProblems(value: unknown): string[] {
  return problemsOfCompleted(completed(value));
}

function problemsOfCompleted({
  value,
  unstated,
  listedButStated = [],
}: {
  value: unknown;
  unstated: string[];
  listedButStated?: string[];
}): string[] {
  const validate = schemaValidator();
  if (!validate(value)) return violationLines(validate.errors, value, referenceKeys);
  return [
    ...listedButStated.map(
      (p) => `notStated lists ${p}, which the profile states: leave the point out, or take it off the list`,
    ),
    ...consistencyProblems(value as Profile, new Set(unstated)),
  ];
}

let formatDefaults: { defaults: Json; schema: Json } | undefined;
let currentSchema: Json | undefined;

/** The current profile schema (schemas/profile.schema.json), parsed once. */
export function profileSchema(): Json {
  currentSchema ??= JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'profile.schema.json'), 'utf8')) as Json;
  return currentSchema;
}

/**
 * A parsed profile with every point it leaves out filled with the format's default (the reference profile's value),
 * and the JSON pointers of those points. Anything but an object is returned as it is.
 */
export function completed(value: unknown): { value: unknown; unstated: string[]; listedButStated?: string[] } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { value, unstated: [] };
  formatDefaults ??= {
    defaults: parseYamlText(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8')) as Json,
    schema: profileSchema(),
  };
  return completeProfile(value as Json, formatDefaults.defaults, formatDefaults.schema);
}

/**
 * Problems of a profile read from `text` as each starts at its place in `file`: `file:line:column: key.path
 * message`. A schema problem (`/a/b: ...`) is placed at the value of its pointer (an unknown key at the key, a missing
 * one at the mapping that lacks it), a consistency rule's (`a.b ...`) at the key path it starts with.
 */
export function locatedProblems(problems: readonly string[], text: string, file: string): string[] {
  return problems.map((problem) => {
    const schema = /^(\/[^:]*): (.*)$/.exec(problem);
    if (schema) {
      const keys = pointerKeys(schema[1] === '/' ? '' : schema[1]!);
      const unknownKey = / additional properties \(([^)]+)\)$/.exec(schema[2]!)?.[1];
      const at = unknownKey ? yamlPosition(text, [...keys, unknownKey], true) : yamlPosition(text, keys);
      const where = at ? `${file}:${at.line}:${at.column}` : file;
      return `${where}: ${keys.length ? `${keys.join('.')} ` : ''}${schema[2]}`;
    }
    const dotted = /^([A-Za-z][\w-]*(?:\.[\w-]+)*)/.exec(problem)?.[1];
    const at = dotted ? yamlPosition(text, dotted.split('.')) : undefined;
    return at ? `${file}:${at.line}:${at.column}: ${problem}` : `${file}: ${problem}`;
  });
}

/** A parsed profile of any format the kit knows, taken to the current format. */
export interface ReadProfile {
  /** The profile in the current format, when it is valid. */
  profile?: Profile;
  /** Every problem (`pointer: message` and consistency rules); empty when valid. */
  problems: string[];
  /** The format the problems are about, when it is not the current one. */
  problemsOf?: number;
  /** True when `problemsOf` is the closest format to a profile without `format` that no format accepts. */
  closest?: boolean;
  /** How the profile was migrated, when it was in an earlier format. */
  migration?: Migration;
  /** Earlier formats that also accept the profile, besides the one migrated from. */
  alsoValidIn?: number[];
  /** JSON pointers of the points the profile does not state (filled with the format's defaults in `profile`). */
  unstated: string[];
}

const MISSING_FORMAT = "/: must have required property 'format'";

/**
 * Read a parsed profile whatever its format: a profile without `format` is recognised by the kept schemas of the
 * unversioned formats and migrated; `format` of the current format is validated as it is; a higher one is refused
 * (ProfileFormatError naming `where`). An explicit earlier number skips recognition but is checked the same way.
 */
export function readProfile(value: unknown, where = 'the profile'): ReadProfile {
  const declared =
    value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>).format : null;
  let from: number | undefined;
  let alsoValidIn: number[] = [];
  if (declared === undefined) {
    const recognised = recogniseFormat(value);
    if (recognised.format === undefined) {
      const current = profileProblems(value);
      if (current.filter((p) => p !== MISSING_FORMAT).length <= recognised.problems.length)
        return { problems: current, unstated: [] };
      return { problems: recognised.problems, problemsOf: recognised.closest, closest: true, unstated: [] };
    }
    from = recognised.format;
    alsoValidIn = recognised.also;
  } else if (typeof declared === 'number' && Number.isInteger(declared) && declared !== CURRENT_PROFILE_FORMAT) {
    if (declared > CURRENT_PROFILE_FORMAT)
      throw new ProfileFormatError(
        `${where} is in profile format ${declared}, newer than the formats this kit reads (1 to ${CURRENT_PROFILE_FORMAT}): it was written for a later pagi-conformance; upgrade the kit, or use a profile of format ${CURRENT_PROFILE_FORMAT} (CHANGELOG.md lists the formats).`,
      );
    const earlier = profileFormat(declared);
    if (earlier) {
      // An unversioned format's schema has no `format` key; a versioned one's requires it.
      const { format: _, ...rest } = value as Record<string, unknown>;
      const problems = problemsInFormat(earlier.versioned ? value : rest, declared);
      if (problems.length) return { problems, problemsOf: declared, unstated: [] };
      from = declared;
    }
  }
  if (from === undefined) {
    const filled = completed(value);
    const problems = problemsOfCompleted(filled);
    return problems.length
      ? { problems, unstated: filled.unstated }
      : { profile: filled.value as Profile, problems, unstated: filled.unstated };
  }
  // A migrated profile states what its format had: the points added since (format 7's limits.maxFieldLength), and
  // those a format-6 profile left out, are not stated.
  const migration = migrateValue(value as Record<string, unknown>, from);
  const filled = completed(migration.value);
  const problems = problemsOfCompleted(filled);
  return {
    ...(problems.length ? {} : { profile: filled.value as unknown as Profile }),
    problems,
    migration,
    ...(alsoValidIn.length ? { alsoValidIn } : {}),
    unstated: filled.unstated,
  };
}

/** How many keys a migration added, dropped and moved, as a phrase (`3 keys added, 9 dropped, 1 moved`). */
export function changeCounts(migration: Migration): string {
  const changes = allChanges(migration);
  const count = (kind: string) => changes.filter((c) => c.kind === kind).length;
  const added = count('added');
  return `${added} key${added === 1 ? '' : 's'} added, ${count('dropped')} dropped, ${count('moved')} moved`;
}

/** The one line `run`, `serve` and `profile validate` print for a profile they migrated in memory. */
export function deprecationLine(shown: string, migration: Migration): string {
  return `pagi-conform: warning: ${shown} is a profile of ${formatLabel(migration.from)}, migrated in memory to format ${migration.to} (${changeCounts(migration)}); rewrite it with 'pagi-conform profile migrate ${shown} --out ${shown}'`;
}

/** The names of the profiles shipped under spec/profiles. */
export function shippedProfiles(): string[] {
  return fs
    .readdirSync(path.join(SPEC_DIR, 'profiles'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -5))
    .sort();
}

/** A profile file's bytes; a UsageError naming the shipped profiles (and the closest) for a name none has. */
export function readProfileBytes(fileOrName: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    if (code === 'ENOENT' && file !== path.resolve(fileOrName) && !/[\\/.]/.test(fileOrName)) {
      const names = shippedProfiles();
      throw new UsageError(
        `No profile named '${fileOrName}'${didYouMean(fileOrName, names) || '.'} The profiles under spec/profiles are ${names.join(', ')}; a file path needs a '/' or an extension.`,
      );
    }
    throw new UsageError(`Cannot read the profile ${file} (${code}); check the path.`);
  }
}

/**
 * Load a profile by file path, or by name from spec/profiles (`reference`). A profile of an earlier format is
 * migrated in memory (`migration` says how; the caller prints the deprecation line). Throws a ProfileError with every
 * problem listed where it is, a YamlSyntaxError, a UsageError for a file or name that is not there, or
 * ProfileFormatError for a format newer than the kit's.
 */
export function loadProfile(fileOrName = 'reference'): LoadedProfile {
  const file = /[\\/.]/.test(fileOrName)
    ? path.resolve(fileOrName)
    : path.join(SPEC_DIR, 'profiles', `${fileOrName}.yaml`);
  const bytes = readProfileBytes(fileOrName, file);
  const text = bytes.toString('utf8');
  const value = parseYamlText(text, file);
  const read = readProfile(value, `profile ${file}`);
  if (!read.profile) {
    const as = read.problemsOf
      ? ` (read as ${formatLabel(read.problemsOf)}${read.closest ? ': no format key, and the closest format' : ''})`
      : read.migration
        ? ` (migrated from ${formatLabel(read.migration.from)})`
        : '';
    const n = read.problems.length;
    throw new ProfileError(
      `The profile ${file} is not valid${as}, ${n} problem${n === 1 ? '' : 's'}: ${locatedProblems(read.problems, text, file).join('; ')}; correct ${n === 1 ? 'it' : 'them'} and check with 'pagi-conform profile validate ${fileOrName}'.`,
    );
  }
  return {
    profile: read.profile,
    file,
    digest: createHash('sha256').update(bytes).digest('hex'),
    ...(read.migration ? { migration: read.migration } : {}),
    unstated: read.unstated,
  };
}
