/**
 * The fields the document lists for an answer that the answer leaves out: the one walk the shape check
 * (`responseHoldsListedFields`) reports from and `profile discover` decides `responseFields.omitted` by, so the two
 * can never disagree on what counts as a listed field.
 */
import type { OperationKey } from '../model.js';
import type { SpecModel } from './load.js';
import { pointerOf } from './pointer.js';
import { declaredNames, expand, itemSchemas, propertySchemas, type SchemaAt, schemaRoot } from './schema-walk.js';
import { TOKEN_FIELDS } from './terms.js';
import { SpecError } from '../types/errors.js';

/** A listed field left out of an answer: where, and the requirement its absence falls under. */
export interface AbsentField {
  /** JSON pointer into the answer (array indexes included). */
  pointer: string;
  /** `x-pagi: {absent: ID}` of the field's schema, else PAGI-GEN-011. */
  requirement: string;
  /** The path of field names from the body's root, array levels left out: how `responseFields.omitted` names it. */
  key: string;
}

/** A path as `responseFields.omitted` writes it: field names from the body's root, array levels left out. */
export function omittedKey(path: readonly (string | number)[]): string {
  return `/${path.filter((p) => typeof p === 'string').join('/')}`;
}

/**
 * The fields the response schema lists that an answer leaves out, at every object the answer holds. Not listed here:
 * fields the schema requires (schema validation reports them), fields the response echoes from its request (judged by
 * the echo rules), the top level of an echoing response, result groups a payment asks for (`x-pagi.results`), a
 * `token_id` the request did not ask for (its `token_flag` is not the profile's `tokenRequestValue`; PAGI-PAY-010
 * judges one asked for), properties the schema types without the document listing them (`x-pagi: {listed: false}`)
 * and the `omitted` keys (`omittedKey` paths).
 */
export function absentListedFields(
  spec: SpecModel,
  operation: OperationKey,
  instance: Record<string, unknown>,
  options: { request: Record<string, unknown>; tokenRequestValue: string; omitted?: ReadonlySet<string> },
): AbsentField[] {
  const op = spec.operations.get(operation);
  if (!op) throw new SpecError(`spec: no operation ${operation}`);
  const grouped = new Set(Object.values(spec.results).flatMap((g) => [...g.payment, ...g.query]));
  if (options.request[TOKEN_FIELDS.flag] !== options.tokenRequestValue) grouped.add(TOKEN_FIELDS.id);
  const omitted = options.omitted ?? new Set<string>();
  const out: AbsentField[] = [];
  const walk = (v: unknown, ats: SchemaAt[], echoed: SchemaAt[], path: (string | number)[]) => {
    if (ats.length === 0) return;
    if (Array.isArray(v)) {
      const items = itemSchemas(spec, ats);
      const echoItems = itemSchemas(spec, echoed);
      v.forEach((item, i) => walk(item, items, echoItems, [...path, i]));
      return;
    }
    if (!v || typeof v !== 'object') return;
    const value = v as Record<string, unknown>;
    const names = declaredNames(ats) ?? new Set<string>();
    const fromRequest = declaredNames(echoed) ?? new Set<string>();
    const required = new Set(
      ats.flatMap((at) => (Array.isArray(at.node.required) ? (at.node.required as string[]) : [])),
    );
    if (!(op.echoDeep && path.length === 0)) {
      for (const name of names) {
        const nodes = propertySchemas(spec, ats, name);
        const listed = nodes.every((at) => at.node['x-pagi']?.listed !== false);
        const absent = nodes.map((at) => at.node['x-pagi']?.absent).find((id) => typeof id === 'string');
        const key = omittedKey([...path, name]);
        if (
          name in value ||
          !listed ||
          required.has(name) ||
          fromRequest.has(name) ||
          grouped.has(name) ||
          omitted.has(key)
        )
          continue;
        out.push({ pointer: pointerOf([...path, name]), requirement: absent ?? 'PAGI-GEN-011', key });
      }
    }
    for (const [key, child] of Object.entries(value)) {
      walk(child, propertySchemas(spec, ats, key), op.echoDeep ? propertySchemas(spec, echoed, key) : [], [
        ...path,
        key,
      ]);
    }
  };
  walk(
    instance,
    expand(spec, schemaRoot(spec, op.responseSchemaId)),
    op.echoDeep ? expand(spec, schemaRoot(spec, op.requestSchemaId)) : [],
    [],
  );
  return out;
}
