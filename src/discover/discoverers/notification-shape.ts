/**
 * A notification body in the gateway's own shape (`notifications.kinds.*.ownShape`), inferred from the bodies the
 * receiver got and the answers that produced them: the template (each body value matched to the answer field
 * holding it in every pair → `{response.<field>}`, a value no answer field holds kept as a literal, nested objects
 * kept) and a JSON Schema (type object, `required` = the keys present in every body, `additionalProperties` false,
 * each property's type, `const` for a literal). What the bodies cannot tell (a minimum length, a pattern) stays
 * out of the schema. A body whose members are the answer's own fields is the documented shape: no own shape.
 */
import type { Exchange } from '../../model.js';

/** One notification body and the answer of the operation that sent it. */
export interface ShapePair {
  body: Record<string, unknown>;
  response: Record<string, unknown>;
}

/** The signature member, added over the filled template (never part of it). */
const SIGNATURE = 'encryption_data';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const scalarText = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/** The pairs of notifications received for a key and the answer that produced them. */
export function pairsOf(notes: Exchange[], response: Record<string, unknown> | undefined): ShapePair[] {
  if (!response) return [];
  return notes
    .filter((n) => isObject(n.request.body))
    .map((n) => ({ body: n.request.body as Record<string, unknown>, response }));
}

/** Whether a body is the documented shape: every member (but the signature) an answer field with its value. */
export function isDocumentedShape(pair: ShapePair): boolean {
  return Object.entries(pair.body).every(
    ([k, v]) => k === SIGNATURE || (k in pair.response && scalarText(pair.response[k]) === scalarText(v)),
  );
}

function schemaType(values: unknown[]): string | undefined {
  const types = new Set(
    values.map((v) =>
      isObject(v)
        ? 'object'
        : Array.isArray(v)
          ? 'array'
          : v === null
            ? 'null'
            : typeof v === 'number'
              ? 'number'
              : typeof v,
    ),
  );
  return types.size === 1 ? [...types][0] : undefined;
}

type Template = { [key: string]: string | Template };

/** The answer fields holding `texts[i]` in `responses[i]` for every i where the text is not empty. */
function fieldsHolding(texts: (string | undefined)[], responses: Record<string, unknown>[]): string[] {
  const seen = texts.map((t, i) => ({ t, r: responses[i]! })).filter((x) => x.t !== undefined && x.t !== '');
  if (!seen.length) return [];
  const candidates = Object.keys(seen[0]!.r).filter((f) => f !== SIGNATURE);
  return candidates.filter((f) => seen.every((x) => scalarText(x.r[f]) === x.t));
}

/** Template and schema of the members of `bodies` (one level), recursing into nested objects. */
function infer(
  bodies: Record<string, unknown>[],
  responses: Record<string, unknown>[],
  notes: string[],
  at: string,
): { template: Template; schema: Record<string, unknown> } {
  const keys: string[] = [];
  for (const b of bodies) for (const k of Object.keys(b)) if (!keys.includes(k)) keys.push(k);
  const template: Template = {};
  const properties: Record<string, unknown> = {};
  for (const key of keys) {
    const present = bodies.map((b, i) => ({ v: b[key], r: responses[i]! })).filter((x) => x.v !== undefined);
    const values = present.map((x) => x.v);
    const type = schemaType(values);
    if (key === SIGNATURE && !at) {
      properties[key] = type ? { type } : {};
      continue;
    }
    if (type === 'object') {
      const inner = infer(
        values as Record<string, unknown>[],
        present.map((x) => x.r),
        notes,
        `${at}${key}.`,
      );
      template[key] = inner.template;
      properties[key] = inner.schema;
      continue;
    }
    const texts = values.map(scalarText);
    const fields = fieldsHolding(
      texts,
      present.map((x) => x.r),
    );
    const field = fields.includes(key) ? key : fields[0];
    if (field) {
      template[key] = `{response.${field}}`;
      properties[key] = type ? { type } : {};
      if (fields.length > 1) notes.push(`${at}${key}: also ${fields.filter((f) => f !== field).join(', ')}`);
    } else if (texts.every((t) => t !== undefined && t === texts[0]) && texts[0] !== '') {
      template[key] = texts[0]!;
      properties[key] = { const: values[0] };
    } else {
      // Empty in every body (an answer field the probes never saw filled) or no single source: out of the template
      // (the kit compares only the template's members), in the schema by its type, left to review.
      properties[key] = type ? { type } : {};
      notes.push(`${at}${key}: ${texts.every((t) => t === '') ? 'empty in every body' : 'no answer field holds it'}`);
    }
  }
  const required = keys.filter((k) => bodies.every((b) => b[k] !== undefined));
  return {
    template,
    schema: { type: 'object', required, additionalProperties: false, properties },
  };
}

/** The own shape of the bodies, or undefined when they are the documented shape (or none came). */
export function inferOwnShape(
  pairs: ShapePair[],
): { template: Template; schema: Record<string, unknown>; notes: string[] } | undefined {
  if (!pairs.length || pairs.every(isDocumentedShape)) return undefined;
  const notes: string[] = [];
  const { template, schema } = infer(
    pairs.map((p) => p.body),
    pairs.map((p) => p.response),
    notes,
    '',
  );
  return { template, schema, notes };
}
