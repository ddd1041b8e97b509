/**
 * Facts the gateway reads from the spec's schemas instead of restating them: the property names of a schema
 * (in the order the schema lists them), which request fields are nested (objects or arrays), and the schema of
 * the items of an array property.
 */
import type { SpecModel } from '../core/spec/load.js';
import { absoluteRef, refBelow as below, resolveRef } from '../core/spec/pointer.js';
import { SpecError } from '../core/types/errors.js';

interface Located {
  node: Record<string, any>;
  /** Absolute `$id` (with fragment) the node was found at. */
  at: string;
}

function refTarget(spec: SpecModel, ref: string, base: string): Located | undefined {
  const target = resolveRef(spec.schemas, ref, base);
  return target.node && typeof target.node === 'object' ? { node: target.node, at: absoluteRef(target) } : undefined;
}

function locate(spec: SpecModel, schemaId: string): Located {
  const found = refTarget(spec, schemaId, schemaId);
  if (!found) throw new SpecError(`gateway: no schema ${schemaId}`);
  return found;
}

/**
 * The schema nodes that together describe one object, in the order its fields read: schemas it is composed of
 * by reference (`$ref`, `allOf` entries that are references) first, then the node itself, then its inline
 * `allOf` parts (which restate fields to require them).
 */
function parts(spec: SpecModel, start: Located, seen = new Set<string>()): Located[] {
  const out: Located[] = [];
  const visit = (loc: Located) => {
    const key = loc.at + JSON.stringify(Object.keys(loc.node));
    if (seen.has(key)) return;
    seen.add(key);
    const subs: Located[] = (loc.node.allOf ?? []).map((sub: Record<string, any>, i: number) => ({
      node: sub,
      at: below(loc.at, 'allOf', i),
    }));
    const isRef = (l: Located) => typeof l.node.$ref === 'string' && !l.node.properties;
    if (typeof loc.node.$ref === 'string') {
      const target = refTarget(spec, loc.node.$ref, loc.at);
      if (target) visit(target);
    }
    subs.filter(isRef).forEach(visit);
    out.push(loc);
    subs.filter((l) => !isRef(l)).forEach(visit);
  };
  visit(start);
  return out;
}

/** Top-level property names of a schema, in the order the schema lists them (`$ref` and `allOf` followed). */
export function propertyNames(spec: SpecModel, schemaId: string): string[] {
  const names = new Set<string>();
  for (const part of parts(spec, locate(spec, schemaId)))
    for (const name of Object.keys(part.node.properties ?? {})) names.add(name);
  return [...names];
}

/** Every schema node a property's value is described by (the property's own node, its `$ref` and `allOf` targets). */
function propertyParts(spec: SpecModel, schemaId: string, prop: string): Located[] {
  const out: Located[] = [];
  for (const part of parts(spec, locate(spec, schemaId))) {
    const node = part.node.properties?.[prop];
    if (node && typeof node === 'object') out.push(...parts(spec, { node, at: below(part.at, 'properties', prop) }));
  }
  return out;
}

/** Request fields whose schema is an object or an array (they travel as JSON text in form bodies). */
export function nestedFields(spec: SpecModel, schemaId: string): Set<string> {
  const out = new Set<string>();
  for (const name of propertyNames(spec, schemaId)) {
    if (propertyParts(spec, schemaId, name).some((p) => p.node.type === 'object' || p.node.type === 'array'))
      out.add(name);
  }
  return out;
}

/** Top-level fields the schema types as numbers or integers (a form body carries them as decimal text). */
export function numericFields(spec: SpecModel, schemaId: string): Map<string, 'integer' | 'number'> {
  const out = new Map<string, 'integer' | 'number'>();
  for (const name of propertyNames(spec, schemaId)) {
    const types = propertyParts(spec, schemaId, name).map((p) => p.node.type);
    if (types.includes('integer')) out.set(name, 'integer');
    else if (types.includes('number')) out.set(name, 'number');
  }
  return out;
}

/** `$id` of the schema of the items of an array property (`capture_orders` → the capture request item schema). */
export function itemSchemaId(spec: SpecModel, schemaId: string, prop: string): string {
  for (const part of propertyParts(spec, schemaId, prop)) {
    const ref = part.node.items?.$ref;
    if (typeof ref !== 'string') continue;
    const target = resolveRef(spec.schemas, ref, part.at);
    return target.pointer ? absoluteRef(target) : target.base;
  }
  throw new SpecError(`gateway: ${schemaId} has no item schema for ${prop}`);
}

/** Absolute schema id of one property of a schema, usable with `spec.validator`. */
export function propertySchemaId(spec: SpecModel, schemaId: string, prop: string): string | undefined {
  const own = parts(spec, locate(spec, schemaId)).find((p) => p.node.properties?.[prop]);
  return own ? below(own.at, 'properties', prop) : undefined;
}

/** Property names of the object a property holds (`delivery_information` → the seven delivery fields). */
export function objectPropertyNames(spec: SpecModel, schemaId: string, prop: string): string[] {
  const names = new Set<string>();
  for (const part of propertyParts(spec, schemaId, prop))
    for (const name of Object.keys(part.node.properties ?? {})) names.add(name);
  return [...names];
}
