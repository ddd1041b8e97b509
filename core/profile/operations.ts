/**
 * A profile read against a spec: every operation of the spec has its per-operation settings (request media type,
 * signed fields, error format, refusal forms), an operation the profile does not name taking the profile-wide default
 * (`operationDefaults`, or, where the profile gives none, what the profile's operations agree on). An operation added
 * to a copy of the spec is thus signed, sent and refused as the profile says of operations in general.
 */
import type { OperationKey } from '../spec/terms.js';
import type { SpecModel } from '../spec/load.js';
import { isSelectingOperation, operationSet } from '../spec/operations.js';
import type { Profile } from './load.js';

type Defaults = NonNullable<Profile['operationDefaults']>;

/** An operation selecting records through the profile's selection fields (the profile's `selection` keys). */
export type SelectingOperation = Extract<keyof Profile['selection'], OperationKey>;

/** Whether an operation of the spec selects records (`x-pagi-limit`): the profile's `selection` has its fields. */
export function isSelecting(spec: SpecModel, op: OperationKey): op is SelectingOperation {
  return isSelectingOperation(spec, op);
}

/** The value most entries of a per-operation map hold (the first in spec order on a tie). */
function mostCommon<T>(values: readonly T[]): T | undefined {
  const counts = new Map<string, { value: T; n: number }>();
  for (const value of values) {
    const key = JSON.stringify(value);
    const hit = counts.get(key) ?? { value, n: 0 };
    hit.n++;
    counts.set(key, hit);
  }
  let best: { value: T; n: number } | undefined;
  for (const entry of counts.values()) if (!best || entry.n > best.n) best = entry;
  return best?.value;
}

/** The fields every list holds, in the order of the first (the fields every named operation signs). */
function common(lists: readonly (readonly string[])[]): string[] {
  const [first, ...rest] = lists;
  return (first ?? []).filter((f) => rest.every((l) => l.includes(f)));
}

/** The profile-wide defaults: the profile's `operationDefaults`, else what its named operations agree on. */
export function operationDefaults(profile: Profile): Required<Defaults> {
  const given = profile.operationDefaults ?? {};
  const sig = profile.signature;
  const requestLists = sig.request.mode === 'fieldList' ? Object.values<string[]>(sig.request.fields as any) : [];
  const response = sig.response as { fields?: Record<string, string[]> };
  const responseLists = response.fields ? Object.values(response.fields) : [];
  return {
    requestMedia: given.requestMedia ?? mostCommon(Object.values(profile.requestMedia.types)) ?? 'json',
    signatureFields: {
      request: given.signatureFields?.request ?? common(requestLists),
      response: given.signatureFields?.response ?? common(responseLists),
    },
    errorFormat: given.errorFormat ?? mostCommon(Object.values(profile.errors.formatByOperation)) ?? 'json',
    refusalForms: given.refusalForms ??
      mostCommon(Object.values<Defaults['refusalForms']>(profile.errors.refusalForms as any)) ?? ['httpError'],
  };
}

const completed = new WeakMap<Profile, WeakMap<SpecModel, Profile>>();

/**
 * The profile with every operation of the spec given its per-operation settings: the profile itself when it names
 * them all (every shipped profile, with the kit's spec), else a copy with the defaults filled in.
 */
export function profileForSpec(profile: Profile, spec: SpecModel): Profile {
  const unnamed = operationSet(spec, 'all').filter(
    (op) => !(op in (profile.requestMedia.types as Record<string, unknown>)),
  );
  if (!unnamed.length) return profile;
  let bySpec = completed.get(profile);
  if (!bySpec) completed.set(profile, (bySpec = new WeakMap()));
  const cached = bySpec.get(spec);
  if (cached) return cached;
  const d = operationDefaults(profile);
  const out = structuredClone(profile);
  const signedResponses = new Set<OperationKey>(operationSet(spec, 'signedResponse'));
  const set = (map: object, op: OperationKey, value: unknown) => {
    if (!(op in map)) (map as Record<string, unknown>)[op] = structuredClone(value);
  };
  for (const op of unnamed) {
    set(out.requestMedia.types, op, d.requestMedia);
    if (out.signature.request.mode === 'fieldList') set(out.signature.request.fields, op, d.signatureFields.request);
    const response = out.signature.response as { fields?: Record<string, string[]> };
    if (response.fields && signedResponses.has(op)) set(response.fields, op, d.signatureFields.response);
    set(out.errors.formatByOperation, op, d.errorFormat);
    set(out.errors.refusalForms, op, d.refusalForms);
  }
  bySpec.set(spec, out);
  return out;
}
