/**
 * Echoes compared: the leaves of a sent body paired with an answer's values at the same pointers, and the
 * normalisations a profile may declare for an echoed field (`responseFields.echoNormalised`). One definition for the
 * payout echo check and for `profile discover`, which decides the normalisations from the echoes it saw.
 */
import { pointerOf } from './pointer.js';

/** A leaf of a value: its pointer, the value, and what `valueAt(other, pointer)` reads at the same place of another. */
export interface PairedLeaf {
  pointer: string;
  value: unknown;
  other: unknown;
}

/** `valueAt`'s step from a node to its field `key` (undefined below a value that is no object). */
function fieldOf(node: unknown, key: string): unknown {
  return node === null || typeof node !== 'object' ? undefined : (node as Record<string, unknown>)[key];
}

/**
 * The leaves of a value (objects and arrays walked; scalars are leaves) in order, each with the value at the same
 * pointer of `other`: both read in one walk (a payout answer has dozens of leaves, each read so for every deep case).
 */
export function pairedLeaves(value: unknown, other: unknown, pointer = '', out: PairedLeaf[] = []): PairedLeaf[] {
  if (Array.isArray(value)) value.forEach((v, i) => pairedLeaves(v, fieldOf(other, String(i)), `${pointer}/${i}`, out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) pairedLeaves(v, fieldOf(other, k), `${pointer}${pointerOf([k])}`, out);
  else out.push({ pointer, value, other });
  return out;
}

/** Whether the spec's echo rule excepts the field at `pointer` (an excepted field or one below it). */
export function echoExcepted(except: readonly string[], pointer: string): boolean {
  return except.some((e) => pointer === e || pointer.startsWith(`${e}/`));
}

/** The normalisations a profile may declare for an echoed field (`responseFields.echoNormalised[].as`). */
export const NORMALISATIONS = ['caseInsensitive', 'number', 'trimmed'] as const;

/** Normalisation of echoes: how the profile says an echoed field compares (array indexes match `*`). */
export type Normalisation = (typeof NORMALISATIONS)[number];

/** The normalisation the profile's rules give the field at `pointer` (a rule's `*` matches an array index). */
export function echoNormalisation(
  rules: readonly { field: string; as: Normalisation }[] | undefined,
  pointer: string,
): Normalisation | undefined {
  if (!rules?.length) return undefined;
  const parts = pointer.split('/');
  const matches = (field: string) => {
    const want = field.split('/');
    return (
      want.length === parts.length && want.every((w, i) => w === parts[i] || (w === '*' && /^[0-9]+$/.test(parts[i]!)))
    );
  };
  return rules.find((r) => matches(r.field))?.as;
}

/** Whether an echoed value equals the value sent once both are normalised as `how` says. */
export function sameNormalised(how: Normalisation, sent: unknown, got: unknown): boolean {
  if (got === undefined || got === null) return false;
  const [a, b] = [String(sent), String(got)];
  if (how === 'caseInsensitive') return a.toLowerCase() === b.toLowerCase();
  if (how === 'trimmed') return a.trim() === b.trim();
  return a.trim() !== '' && b.trim() !== '' && Number(a) === Number(b);
}
