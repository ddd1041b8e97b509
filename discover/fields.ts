/** Facts of the spec discovery reads: the top-level fields a request or response schema documents. */
import type { OperationKey } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import { resolveRef } from '../core/spec/pointer.js';

const cache = new WeakMap<SpecModel, Map<string, string[]>>();

/** Top-level property names of a schema `$id` (its `$ref` and `allOf` parts followed), in schema order. */
export function schemaFields(spec: SpecModel, schemaId: string): string[] {
  let byId = cache.get(spec);
  if (!byId) cache.set(spec, (byId = new Map()));
  const known = byId.get(schemaId);
  if (known) return known;
  const names = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (node: Record<string, any> | undefined, base: string) => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') {
      const target = resolveRef(spec.schemas, node.$ref, base);
      visit(target.node, target.base);
    }
    for (const part of node.allOf ?? []) visit(part, base);
    for (const name of Object.keys(node.properties ?? {})) names.add(name);
  };
  visit(spec.schemas.get(schemaId), schemaId);
  const out = [...names];
  byId.set(schemaId, out);
  return out;
}

/** The top-level fields an operation's answer documents. */
export function responseFields(spec: SpecModel, op: OperationKey): string[] {
  return schemaFields(spec, spec.operations.get(op)!.responseSchemaId);
}

/** Top-level fields a request schema requires (its own `required` and its `allOf` parts'). */
export function requiredFields(spec: SpecModel, op: OperationKey): string[] {
  const node = spec.schemas.get(spec.operations.get(op)!.requestSchemaId) ?? {};
  const out = new Set<string>(node.required ?? []);
  for (const part of node.allOf ?? []) for (const r of part.required ?? []) out.add(r);
  return [...out];
}
