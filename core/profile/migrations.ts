/**
 * The migration chain of the profile format: one step per format change (core/profile/formats.ts), each a list of
 * changes computed from the profile as the step finds it. A key that no longer has a home is dropped with the reason;
 * a key that moved is named with where it lives now; a key the new format requires is filled with the value that
 * reproduces what the kit and the reference gateway did under the old format. The rules are data: the change list
 * drives both the in-memory migration of `run`/`serve` and the rewrite of the file by `profile migrate`.
 */

/** A profile (or a part of one) as parsed YAML. */
export type Json = Record<string, unknown>;

/** What one change does. */
export type ChangeKind = 'added' | 'dropped' | 'moved';

/** One change a step makes to a profile. */
export interface ProfileChange {
  kind: ChangeKind;
  /** Dotted path of the key in the profile. */
  path: string;
  /** `added`: the value written; `dropped` and `moved`: the value the profile held. */
  value: unknown;
  /** `moved`: where the setting lives now (outside the profile: the key leaves it). */
  to?: string;
  /** Why, in one sentence. */
  reason: string;
}

/** One step of the chain: from format `from` to `from + 1`. */
export interface MigrationStep {
  from: number;
  /** The commit whose schema change the step undoes. */
  commit: string;
  /** The change in a few words. */
  title: string;
  changes(profile: Json): ProfileChange[];
}

/** The value at a dotted path (undefined when any part is missing). */
export function valueAt(value: unknown, dotted: string): unknown {
  let node: unknown = value;
  for (const key of dotted.split('.')) {
    if (!node || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

const has = (p: Json, dotted: string) => valueAt(p, dotted) !== undefined;

/** `path` dropped when present. `reason` may depend on the value held (a value that meant something else says so). */
function drop(p: Json, path: string, reason: string | ((value: unknown) => string)): ProfileChange[] {
  if (!has(p, path)) return [];
  const value = valueAt(p, path);
  return [{ kind: 'dropped', path, value, reason: typeof reason === 'string' ? reason : reason(value) }];
}

/** A one-value setting dropped: its only value became a rule of the format. */
function dropOneValue(p: Json, path: string, rule: string): ProfileChange[] {
  return drop(p, path, `its only value is now the format's rule: ${rule}`);
}

/** `path` added with `value` when absent. */
function add(p: Json, path: string, value: unknown, reason: string): ProfileChange[] {
  return has(p, path) ? [] : [{ kind: 'added', path, value, reason }];
}

/** `path` moved out of the profile, to `to`. */
function moveOut(p: Json, path: string, to: string, reason: (value: unknown) => string): ProfileChange[] {
  if (!has(p, path)) return [];
  const value = valueAt(p, path);
  return [{ kind: 'moved', path, value, to, reason: reason(value) }];
}

/** The chain, oldest step first. */
export const MIGRATION_STEPS: readonly MigrationStep[] = [
  {
    from: 1,
    commit: 'a2dec85',
    title:
      'refusal forms per operation, APM state after the issuer page, fixed-width card masks; one-value settings removed; secretScope to the gateway configuration',
    changes: (p) => [
      ...add(
        p,
        'fields.cardMask.hiddenWidth',
        'perDigit',
        'format 1 hides each digit between the kept ones behind one maskChar',
      ),
      ...add(
        p,
        'transitions.afterIssuerPage',
        {
          paid: valueAt(p, 'transitions.afterAuthorise.approved'),
          declined: valueAt(p, 'transitions.afterAuthorise.declined'),
        },
        'format 1 gives an APM payment paid or declined on the issuer page the state of a direct payment with that outcome (transitions.afterAuthorise)',
      ),
      ...add(
        p,
        'errors.refusalForms',
        Object.fromEntries(
          Object.keys((valueAt(p, 'errors.formatByOperation') as Json) ?? {}).map((op) => [op, ['httpError']]),
        ),
        "format 1 refuses a request of every operation with the error kind's HTTP status and the error body (httpError)",
      ),
      ...dropOneValue(p, 'requestMedia.formNestedValues', 'a nested value in a form body is its JSON text (jsonText)'),
      ...dropOneValue(p, 'requestMedia.charset', 'request bodies are UTF-8'),
      ...moveOut(
        p,
        'signature.secretScope',
        'the gateway configuration (secretScope in the config file of pagi-conform serve, default account)',
        (value) =>
          `which secret signs is a credential of the gateway, not a behaviour the kit checks (the kit signs with the secret it is given)${value === 'account' ? '' : `; this profile said ${String(value)}: set secretScope: ${String(value)} in the gateway configuration to keep it`}`,
      ),
      ...drop(p, 'batch.sequential', (value) =>
        value === false
          ? 'batch items are always processed in request order, each seeing the effect of the earlier ones; this profile said false, which no release supported (the reference gateway refused it) and no check read'
          : 'batch items are always processed in request order, each seeing the effect of the earlier ones (what true said)',
      ),
      ...drop(
        p,
        'refunds.referenceId.sequenceDigits',
        'the interface fixes two digits (<transaction_id>-<two digits>); the key could hold only 2',
      ),
      ...dropOneValue(p, 'refunds.referenceId.scope', 'refund reference ids are numbered per transaction'),
      ...dropOneValue(p, 'checkout.nestedValues', "a nested field's hidden input holds its JSON text (jsonText)"),
      ...dropOneValue(
        p,
        'checkout.allParams.encoding',
        'allParams is an application/x-www-form-urlencoded query string (the interface says query string)',
      ),
      ...dropOneValue(
        p,
        'checkout.allParams.values',
        'each value in allParams is written as its own hidden input is (sameAsInputs)',
      ),
    ],
  },
  {
    from: 2,
    commit: '5d17370',
    title: 'one-value settings itemAmount and payout.replay removed',
    changes: (p) => [
      ...['review', 'cancel', 'refund'].flatMap((op) =>
        dropOneValue(
          p,
          `transitions.${op}.itemAmount`,
          `the item amount of ${op} is the payment's original amount (original)`,
        ),
      ),
      ...dropOneValue(
        p,
        'payout.replay',
        'a payout repeating a known payout.idempotencyKey with the same body gets the first response again, with no second payout or notification (sameResponse)',
      ),
    ],
  },
  {
    from: 3,
    commit: 'c983a7b',
    title: 'notifications.acknowledgement.bodyIgnored removed',
    changes: (p) => [
      ...drop(p, 'notifications.acknowledgement.bodyIgnored', (value) =>
        value === false
          ? 'the body of an acknowledgement is never read: only its HTTP status counts; this profile said false, which no check could observe'
          : 'the body of an acknowledgement is never read: only its HTTP status counts (what true said)',
      ),
    ],
  },
  {
    from: 4,
    commit: 'unreleased',
    title: 'the format names itself',
    // Nothing else changed: the `format` key every migration ends with is all (see migrateValue).
    changes: () => [],
  },
  {
    from: 5,
    commit: 'unreleased',
    title: 'every point may be left out (not stated)',
    // A format-5 profile states every point: nothing changes but the number (see migrateValue).
    changes: () => [],
  },
  {
    from: 6,
    commit: 'unreleased',
    title: 'the point limits.maxFieldLength',
    // Format 6 had no such point, so a format-6 profile says nothing of field lengths: the point stays unstated (no
    // check judges it, the reference gateway applies its own default), never filled with a length the profile did
    // not state. Nothing changes but the number (see migrateValue).
    changes: () => [],
  },
];
