/**
 * Every setting a profile can hold: the leaves of `schemas/profile.schema.json` as dotted paths. A leaf is a scalar,
 * a list, or a map: an object whose keys the profile chooses (`requestHeaders.headers`, a body template), or whose
 * optional keys all name one kind of value (`transitions.capture.refusals`: a failure per payment state). The
 * variants of a `oneOf` each add their own leaves.
 */
import { resolveRef } from '../spec/pointer.js';

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  oneOf?: Schema[];
  anyOf?: Schema[];
  const?: unknown;
};

/** The dotted paths of every leaf of the profile schema (`const` discriminators included). */
export function profileLeaves(schema: Schema & { $defs?: Record<string, Schema> }): string[] {
  const out = new Set<string>();
  const documents = new Map([['', schema]]);
  const resolve = (s: Schema): Schema => {
    let node = s;
    while (node.$ref) {
      const target: Schema | undefined = resolveRef(documents, node.$ref, '').node;
      if (!target || typeof target !== 'object') throw new Error(`profile schema: cannot resolve ${node.$ref}`);
      node = { ...target, ...node, $ref: undefined };
      if (s.$ref && node.$ref === s.$ref) break;
    }
    return node;
  };
  const walk = (s: Schema, path: string) => {
    const node = resolve(s);
    const variants = node.oneOf ?? node.anyOf;
    if (variants) {
      for (const v of variants) walk(v, path);
      if (!node.properties) return;
    }
    const props = Object.values(node.properties ?? {});
    const isMap =
      props.length > 1 &&
      !(node as { required?: string[] }).required?.length &&
      props.every((p) => p.$ref !== undefined && p.$ref === props[0]!.$ref);
    if (node.properties && props.length && !isMap) {
      for (const [k, v] of Object.entries(node.properties)) walk(v, path ? `${path}.${k}` : k);
      return;
    }
    if (path) out.add(path);
  };
  walk(schema, '');
  return [...out].sort();
}

/** Leaves of `leaves` that no path of `reads` reaches (a read of the leaf itself or of anything below it). */
export function unreadLeaves(leaves: readonly string[], reads: Iterable<string>): string[] {
  const read = new Set(reads);
  const below = [...read];
  return leaves.filter((leaf) => !read.has(leaf) && !below.some((r) => r.startsWith(`${leaf}.`)));
}

/** Where a profile names one kind of label: leaves whose value is one (or a list of them), objects keyed by them. */
export interface LabelPlaces {
  /** The names of the label (the enum of its schema definition). */
  names: string[];
  /** Dotted paths whose value is a label or a list of labels (`transitions.capture.to`, `transitions.capture.from`). */
  values: string[];
  /** Dotted paths of objects whose keys are the labels (`statusValues.payment_status`, `batch.itemFailures`). */
  keys: string[];
}

/**
 * The places of the profile schema that name a label of definition `def` (`paymentState`: payment states,
 * `itemFailure`: per-item failures), derived from where the definition is referenced and which objects are keyed by
 * its names.
 */
export function labelPlaces(
  schema: Schema & { $defs?: Record<string, Schema & { enum?: string[] }> },
  def: string,
): LabelPlaces {
  const ref = `#/$defs/${def}`;
  const names = schema.$defs?.[def]?.enum ?? [];
  const values = new Set<string>();
  const keys = new Set<string>();
  const documents = new Map([['', schema]]);
  const walk = (s: Schema & { items?: Schema }, path: string, depth: number) => {
    if (depth > 40) return;
    if (s.$ref === ref || s.items?.$ref === ref) {
      values.add(path);
      return;
    }
    const node: Schema & { items?: Schema } = s.$ref
      ? { ...resolveRef(documents, s.$ref, '').node, ...s, $ref: undefined }
      : s;
    for (const v of node.oneOf ?? node.anyOf ?? []) walk(v, path, depth + 1);
    const props = Object.keys(node.properties ?? {});
    if (props.length === names.length && props.every((k) => names.includes(k))) keys.add(path);
    for (const [k, v] of Object.entries(node.properties ?? {})) walk(v, path ? `${path}.${k}` : k, depth + 1);
  };
  walk(schema, '', 0);
  return { names, values: [...values].sort(), keys: [...keys].sort() };
}
