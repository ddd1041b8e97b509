/**
 * Stated and not stated (profile format 6): a profile may leave out any point the format's schema lists as `required`
 * (but `format`, `name`, `version` and `description`, and the keys inside a list item, which a point holds whole; a
 * `oneOf` of objects is walked into the variant the value and the default are both of: the one object variant of an
 * object-or-null, `review.triggers`; of `signature.response`, the field-list variant of both). The loader puts the format's default there (the reference profile's value) so that code reading
 * the profile keeps working, and records the JSON pointer of every leaf it filled: the points not stated. A run reads
 * the profile through `kitProfile` (core/profile/reads.ts), which throws ProfilePointNotStated on such a read. A point
 * whose absence would say something (an optional key) is not stated when the top-level `notStated` names its pointer.
 */
import { valueAt } from '../spec/pointer.js';
import type { Json } from './migrations.js';

/** The part of a JSON Schema the walk reads. */
interface Schema {
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  oneOf?: unknown[];
  anyOf?: unknown[];
  $defs?: Record<string, Schema>;
}

/** Top-level keys a profile always states: what the profile is, not a behaviour of the gateway. */
export const ALWAYS_STATED: readonly string[] = ['format', 'name', 'version', 'description'];

const isObject = (v: unknown): v is Json => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** A JSON pointer of keys (`~` and `/` escaped). */
export function pointerOf(keys: readonly string[]): string {
  return keys.map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The pointers of a value's leaves below `keys`: scalars, lists and empty objects (as the draft counts them). */
function leafPointers(value: unknown, keys: string[]): string[] {
  if (isObject(value) && Object.keys(value).length)
    return Object.entries(value).flatMap(([k, v]) => leafPointers(v, [...keys, k]));
  return [pointerOf(keys)];
}

/** A profile completed with the format's defaults, and the points it does not state. */
export interface Completed {
  /** The profile with every point it leaves out filled with its default. */
  value: Json;
  /** JSON pointers of the leaves filled, in schema order, then those `notStated` lists. */
  unstated: string[];
  /** Pointers `notStated` lists whose point the profile states all the same (a problem of the profile). */
  listedButStated: string[];
}

/**
 * Fill every required key `value` leaves out with the value of `defaults` at the same place (a copy), walking the
 * schema's `properties` (not list items; into a `oneOf`/`anyOf` variant when the value and the default are of that one). A key whose default is absent stays absent
 * (validation reports it). `value` is not changed.
 */
export function completeProfile(value: Json, defaults: Json, schema: Schema): Completed {
  const out = structuredClone(value);
  const unstated: string[] = [];
  const resolve = (s: Schema): Schema => {
    let node = s;
    for (let i = 0; node.$ref && i < 16; i++) {
      const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
      const target = name ? schema.$defs?.[name] : undefined;
      if (!target) return {};
      node = { ...target, ...node, $ref: target.$ref };
    }
    return node;
  };
  // A `oneOf`/`anyOf` with one object variant (an object or `null`: `review.triggers`) is walked into when the value
  // is an object: its keys are points like any other. Variants of several objects (`signature.response`: unsigned, field lists, sorted pairs) are walked into the one
  // variant both the value and the default are of, told by their keys and constants: the keys of that variant are
  // points too. A value of another variant than the default, or of none alone, is held whole.
  const objectVariant = (s: Schema, node: Json, dflt: Json | undefined): Schema | undefined => {
    const objects = [...(s.oneOf ?? []), ...(s.anyOf ?? [])]
      .map((v) => resolve(v as Schema))
      .filter((v) => v.properties);
    if (objects.length === 1) return objects[0];
    if (!dflt) return undefined;
    const mine = objects.filter((o) => fits(o, node));
    const theirs = objects.filter((o) => fits(o, dflt));
    return mine.length === 1 && theirs.length === 1 && theirs[0] === mine[0] ? mine[0] : undefined;
  };
  const fits = (variant: Schema, v: Json): boolean =>
    Object.entries(v).every(([key, value]) => {
      const prop = variant.properties?.[key];
      if (!prop) return false;
      const c = (resolve(prop) as { const?: unknown }).const;
      return c === undefined || c === value;
    });
  const walk = (s: Schema, node: Json, dflt: Json | undefined, keys: string[]) => {
    let resolved = resolve(s);
    if (resolved.oneOf || resolved.anyOf) resolved = objectVariant(resolved, node, dflt) ?? {};
    if (!resolved.properties) return;
    const filled = new Set<string>();
    for (const key of resolved.required ?? []) {
      if (!keys.length && ALWAYS_STATED.includes(key)) continue;
      if (Object.hasOwn(node, key) || !dflt || !Object.hasOwn(dflt, key)) continue;
      node[key] = structuredClone(dflt[key]);
      filled.add(key);
      unstated.push(...leafPointers(dflt[key], [...keys, key]));
    }
    for (const [key, sub] of Object.entries(resolved.properties)) {
      const v = node[key];
      if (filled.has(key) || !isObject(v)) continue;
      const d = dflt?.[key];
      walk(sub, v, isObject(d) ? d : undefined, [...keys, key]);
    }
  };
  walk(schema, out, defaults, []);
  // `notStated`: points whose absence would say something (an optional key), not stated all the same.
  const listed = Array.isArray(value.notStated)
    ? value.notStated.filter((p): p is string => typeof p === 'string' && p.startsWith('/'))
    : [];
  for (const p of listed) if (!unstated.includes(p)) unstated.push(p);
  const listedButStated = listed.filter((p) => valueAt(value, p) !== undefined);
  return { value: out, unstated, listedButStated };
}
