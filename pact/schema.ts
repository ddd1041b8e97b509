/**
 * A flattened view of one JSON Schema position of the spec: `$ref`s followed and `allOf` merged, so the pact
 * generator and the pact check read a field's type, patterns (each with the requirement it carries), required
 * children and array bounds in one place. Read-only; validation itself stays with Ajv (`SpecModel.validate`).
 */
import type { SpecModel } from '../core/spec/load.js';
import { resolveRef } from '../core/spec/pointer.js';
import { selectionResults } from '../core/spec/operations.js';
import type { OperationKey } from '../core/spec/terms.js';
import { SpecError } from '../core/types/errors.js';

/** A schema node with the `$id` its relative `$ref`s resolve against. */
export interface SchemaRef {
  node: unknown;
  base: string;
}

/** A pattern and the requirement its constraint carries. */
export interface PatternRule {
  pattern: string;
  requirement?: string;
}

/** What the schema says at one position, over every `$ref` and `allOf` branch. */
export interface FlatSchema {
  /** JSON type (`string`, `number`, `integer`, `object`, `array`, `boolean`), when one is given. */
  type?: string;
  typeRequirement?: string;
  patterns: PatternRule[];
  /** `format` keyword (`uri`) and its requirement. */
  format?: PatternRule;
  /** Requirement of the node itself (its `x-requirement`). */
  requirement?: string;
  /** Name of the `$defs` entry of common.schema.json the field uses (the README's format name). */
  formatName?: string;
  properties: Map<string, SchemaRef[]>;
  /** Required property names, each with the requirement of the `required` keyword naming it. */
  required: Map<string, string | undefined>;
  items: SchemaRef[];
  minItems?: number;
  maxItems?: { value: number; requirement?: string };
  /** Example values given anywhere along the way (the format's first). */
  examples: unknown[];
  /** False when `additionalProperties: false` closes the object. */
  open: boolean;
}

function resolve(spec: SpecModel, ref: string, base: string): SchemaRef {
  const { node, base: id } = resolveRef(spec.schemas, ref, base);
  if (!spec.schemas.has(id)) throw new SpecError(`spec: no schema ${id} (from ${ref} in ${base})`);
  return { node, base: id };
}

/** Flatten the schema at `at` (a node with its base, or a schema `$id`). */
export function flatten(spec: SpecModel, at: SchemaRef | string): FlatSchema {
  const start = typeof at === 'string' ? resolve(spec, at, at) : at;
  const flat: FlatSchema = {
    patterns: [],
    properties: new Map(),
    required: new Map(),
    items: [],
    examples: [],
    open: true,
  };
  const seen = new Set<unknown>();
  const visit = ({ node, base }: SchemaRef, inherited?: string): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const n = node as Record<string, any>;
    const requirement: string | undefined = typeof n['x-requirement'] === 'string' ? n['x-requirement'] : inherited;
    flat.requirement ??= requirement;
    if (typeof n.type === 'string' && !flat.type) {
      flat.type = n.type;
      flat.typeRequirement = requirement;
    }
    if (typeof n.pattern === 'string' && !flat.patterns.some((p) => p.pattern === n.pattern))
      flat.patterns.push({ pattern: n.pattern, requirement });
    if (typeof n.format === 'string' && !flat.format) flat.format = { pattern: n.format, requirement };
    if (Array.isArray(n.examples)) flat.examples.push(...n.examples);
    if (typeof n.minItems === 'number') flat.minItems = Math.max(flat.minItems ?? 0, n.minItems);
    if (typeof n.maxItems === 'number' && (!flat.maxItems || n.maxItems < flat.maxItems.value))
      flat.maxItems = { value: n.maxItems, requirement };
    if (n.additionalProperties === false) flat.open = false;
    for (const name of n.required ?? []) if (!flat.required.has(name)) flat.required.set(name, requirement);
    for (const [name, sub] of Object.entries<unknown>(n.properties ?? {})) {
      if (sub === true) continue;
      const list = flat.properties.get(name) ?? [];
      list.push({ node: sub, base });
      flat.properties.set(name, list);
    }
    if (n.items && typeof n.items === 'object') flat.items.push({ node: n.items, base });
    if (typeof n.$ref === 'string') {
      const target = resolve(spec, n.$ref, base);
      const def = /#\/\$defs\/([^/]+)$/.exec(n.$ref);
      if (def && /common\.schema\.json$/.test(target.base)) flat.formatName ??= def[1];
      visit(target, requirement);
    }
    for (const sub of n.allOf ?? []) visit({ node: sub, base }, requirement);
  };
  visit(start);
  return flat;
}

/** The flattened schema of property `name` below `parent`, or undefined when the schema does not list it. */
export function property(spec: SpecModel, parent: FlatSchema, name: string): FlatSchema | undefined {
  const refs = parent.properties.get(name);
  if (!refs?.length) return undefined;
  const merged = refs.map((r) => flatten(spec, r));
  const out = merged[0]!;
  for (const other of merged.slice(1)) {
    out.type ??= other.type;
    out.typeRequirement ??= other.typeRequirement;
    for (const p of other.patterns) if (!out.patterns.some((q) => q.pattern === p.pattern)) out.patterns.push(p);
    out.format ??= other.format;
    out.formatName ??= other.formatName;
    for (const [k, v] of other.properties) out.properties.set(k, [...(out.properties.get(k) ?? []), ...v]);
    for (const [k, v] of other.required) if (!out.required.has(k)) out.required.set(k, v);
    out.items.push(...other.items);
    out.examples.push(...other.examples);
    if (other.minItems !== undefined) out.minItems = Math.max(out.minItems ?? 0, other.minItems);
    if (other.maxItems && (!out.maxItems || other.maxItems.value < out.maxItems.value)) out.maxItems = other.maxItems;
  }
  return out;
}

/** The flattened schema of the items of an array position. */
export function itemsOf(spec: SpecModel, parent: FlatSchema): FlatSchema | undefined {
  if (!parent.items.length) return undefined;
  const holder: FlatSchema = { ...parent, properties: new Map([['items', parent.items]]) };
  return property(spec, holder, 'items');
}

/** Whether a pattern can be used by Pact's (Rust) regex engine: no look-around, no back-references. */
export function rustCompatible(pattern: string): boolean {
  return !/\(\?[=!<]|\\[1-9]/.test(pattern);
}

/** A regular expression standing for JSON Schema's `uri` format (a scheme, then no white space). */
export const URI_PATTERN = '^[A-Za-z][A-Za-z0-9+.-]*:[^\\s]*$';

/** The invariants by which a selection shows a record just made (the query a payment, the refund search a refund). */
const SHOWN_RECORD_INVARIANTS = ['PAGI-INV-004', 'PAGI-INV-005'];

/**
 * The array a selecting operation's answer must hold a record in when a provider state made one, and the invariant
 * behind it (the one of {@link SHOWN_RECORD_INVARIANTS} whose catalogue entry names the operation); undefined for
 * an operation no such invariant names.
 */
export function shownRecordGuarantee(
  spec: SpecModel,
  op: OperationKey,
): { field: string; requirement: string } | undefined {
  const field = selectionResults(spec, op);
  const requirement = SHOWN_RECORD_INVARIANTS.find((id) => spec.requirements.get(id)?.operations.includes(op));
  return field !== undefined && requirement !== undefined ? { field, requirement } : undefined;
}
