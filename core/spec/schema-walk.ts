/**
 * Reading the kit's JSON Schemas as data: which properties a schema declares at a point of an instance, which
 * requirement ids its constraints carry, and which subschemas apply at a JSON pointer. Validation itself is
 * `spec.validate` (ajv); this module only answers the questions ajv does not (unknown fields, where a format lives).
 */
import type { SpecModel } from './load.js';
import { pointerOf, resolveRef, tokensOf } from './pointer.js';
import { SpecError } from '../types/errors.js';

type Node = Record<string, any>;

/** A schema node with the `$id` its relative references resolve against. */
export interface SchemaAt {
  node: Node;
  base: string;
}

/** Keywords whose failures are about a value's written form (conventions), not the body's structure (shape). */
export const FORMAT_KEYWORDS: ReadonlySet<string> = new Set([
  'pattern',
  'format',
  'not',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);

/** Keywords ajv reports for combinators; their member failures are reported on their own. */
export const COMBINATOR_KEYWORDS: ReadonlySet<string> = new Set([
  'anyOf',
  'oneOf',
  'allOf',
  'if',
  'then',
  'else',
  '$ref',
]);

/** Resolve a `$ref` against `base` within the spec's schema documents; undefined unless it names a schema object. */
function refTarget(spec: SpecModel, ref: string, base: string): SchemaAt | undefined {
  const { node, base: id } = resolveRef(spec.schemas, ref, base);
  return node && typeof node === 'object' ? { node, base: id } : undefined;
}

/** The root schema of a `$id`. */
export function schemaRoot(spec: SpecModel, schemaId: string): SchemaAt {
  const node = spec.schemas.get(schemaId);
  if (!node) throw new SpecError(`spec: no schema ${schemaId}`);
  return { node, base: schemaId };
}

/** Every node that applies where `at` applies: itself, its `$ref` target and its `allOf`/`anyOf`/`oneOf` members, recursively. */
export function expand(spec: SpecModel, at: SchemaAt | readonly SchemaAt[]): SchemaAt[] {
  const out: SchemaAt[] = [];
  const seen = new Set<Node>();
  const visit = (x: SchemaAt | undefined) => {
    if (!x || typeof x.node !== 'object' || seen.has(x.node)) return;
    seen.add(x.node);
    out.push(x);
    if (typeof x.node.$ref === 'string') visit(refTarget(spec, x.node.$ref, x.base));
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      for (const sub of x.node[key] ?? []) visit({ node: sub, base: x.base });
    }
  };
  for (const x of Array.isArray(at) ? at : [at as SchemaAt]) visit(x);
  return out;
}

/** Subschemas applying to property `name` of an object validated by `ats` (already expanded). */
export function propertySchemas(spec: SpecModel, ats: readonly SchemaAt[], name: string): SchemaAt[] {
  const subs: SchemaAt[] = [];
  for (const at of ats) {
    const own = at.node.properties?.[name];
    if (own && typeof own === 'object') subs.push({ node: own, base: at.base });
    else if (own === undefined && at.node.additionalProperties && typeof at.node.additionalProperties === 'object') {
      subs.push({ node: at.node.additionalProperties, base: at.base });
    }
  }
  return expand(spec, subs);
}

/** Subschemas applying to the items of an array validated by `ats` (already expanded). */
export function itemSchemas(spec: SpecModel, ats: readonly SchemaAt[]): SchemaAt[] {
  return expand(
    spec,
    ats
      .filter((at) => at.node.items && typeof at.node.items === 'object')
      .map((at) => ({ node: at.node.items, base: at.base })),
  );
}

/** Property names declared by `ats`; `undefined` when the object is open (`additionalProperties` or `patternProperties`). */
export function declaredNames(ats: readonly SchemaAt[]): Set<string> | undefined {
  const names = new Set<string>();
  for (const at of ats) {
    if (at.node.additionalProperties !== undefined && at.node.additionalProperties !== false) return undefined;
    if (at.node.patternProperties) return undefined;
    for (const name of Object.keys(at.node.properties ?? {})) names.add(name);
  }
  return names;
}

/** JSON pointers of every property of `value` that the schema `schemaId` does not declare (objects inside arrays included). */
export function undeclaredFields(spec: SpecModel, schemaId: string, value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, ats: SchemaAt[], path: (string | number)[]) => {
    if (ats.length === 0) return;
    if (Array.isArray(v)) {
      const items = itemSchemas(spec, ats);
      v.forEach((item, i) => walk(item, items, [...path, i]));
      return;
    }
    if (!v || typeof v !== 'object') return;
    const names = declaredNames(ats);
    for (const [key, child] of Object.entries(v)) {
      if (names && !names.has(key)) {
        out.push(pointerOf([...path, key]));
        continue;
      }
      walk(child, propertySchemas(spec, ats, key), [...path, key]);
    }
  };
  walk(value, expand(spec, schemaRoot(spec, schemaId)), []);
  return out;
}

/** Subschemas applying at a JSON pointer of an instance (object keys and array indexes). */
export function schemasAt(spec: SpecModel, schemaId: string, pointer: string): SchemaAt[] {
  let ats = expand(spec, schemaRoot(spec, schemaId));
  for (const token of tokensOf(pointer)) {
    ats =
      /^[0-9]+$/.test(token) && ats.some((a) => a.node.items)
        ? itemSchemas(spec, ats)
        : propertySchemas(spec, ats, token);
  }
  return ats;
}

/** Names of the top-level properties of a schema whose subschema is an array. */
export function arrayProperties(spec: SpecModel, schemaId: string): string[] {
  const ats = expand(spec, schemaRoot(spec, schemaId));
  const names = new Set<string>();
  for (const at of ats) for (const name of Object.keys(at.node.properties ?? {})) names.add(name);
  return [...names].filter((name) =>
    propertySchemas(spec, ats, name).some((s) => s.node.type === 'array' || s.node.items),
  );
}

/** Every schema node reachable from `schemaIds` (properties, items, combinators, references, `not`). */
function closure(spec: SpecModel, schemaIds: readonly string[]): Node[] {
  const out: Node[] = [];
  const seen = new Set<Node>();
  const visit = (node: unknown, base: string) => {
    if (!node || typeof node !== 'object' || seen.has(node as Node)) return;
    const n = node as Node;
    seen.add(n);
    out.push(n);
    if (typeof n.$ref === 'string') {
      const target = refTarget(spec, n.$ref, base);
      if (target) visit(target.node, target.base);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const sub of n[key] ?? []) visit(sub, base);
    for (const key of ['not', 'items', 'additionalProperties', 'if', 'then', 'else']) visit(n[key], base);
    for (const sub of Object.values(n.properties ?? {})) visit(sub, base);
  };
  for (const id of schemaIds) visit(schemaRoot(spec, id).node, id);
  return out;
}

/**
 * Requirement ids carried (`x-requirement`) by the constraints reachable from `schemaIds`, split by what a failure
 * of the constraint is about: `format` (a value's written form, FORMAT_KEYWORDS) or `structure` (everything else).
 */
export function schemaRequirements(
  spec: SpecModel,
  schemaIds: readonly string[],
): { structure: Set<string>; format: Set<string> } {
  const structure = new Set<string>();
  const format = new Set<string>();
  for (const node of closure(spec, schemaIds)) {
    const id = node['x-requirement'];
    if (typeof id !== 'string') continue;
    const keywords = Object.keys(node).filter(
      (k) =>
        !k.startsWith('x-') && !['description', 'title', 'examples', '$schema', '$id', '$defs', '$comment'].includes(k),
    );
    if (keywords.some((k) => FORMAT_KEYWORDS.has(k))) format.add(id);
    if (
      keywords.some((k) => !FORMAT_KEYWORDS.has(k) && !COMBINATOR_KEYWORDS.has(k)) ||
      keywords.every((k) => COMBINATOR_KEYWORDS.has(k))
    )
      structure.add(id);
  }
  return { structure, format };
}

/** The `examples` a schema gives a property (values the document shows occurring), through references. */
export function shownValues(spec: SpecModel, schemaId: string, pointer: string): unknown[] {
  const values: unknown[] = [];
  for (const at of schemasAt(spec, schemaId, pointer)) for (const v of at.node.examples ?? []) values.push(v);
  return [...new Set(values)];
}
