/**
 * A notification body in the gateway's own shape (`notifications.kinds.*.ownShape`), inferred from the bodies the
 * receiver got and the answers that produced them: the template (each body value matched to the answer field
 * holding it in every pair → `{response.<field>}`, a value no answer field holds kept as a literal, nested objects
 * kept) and a JSON Schema (type object, `required` = the keys present in every body, `additionalProperties` false,
 * each property's type, `const` for a literal). A member carrying an answer field carries that field's format as the
 * document states it (`constrain`: a minimum length, a pattern), where every value seen meets it; the signature
 * member is never empty. Other constraints (a pattern of the gateway's own) no body tells: they stay out. A body whose
 * members are the answer's own fields is the documented shape: no own shape.
 */
import type { Exchange, OperationKey } from '../../core/model.js';
import type { SpecModel } from '../../core/spec/load.js';

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

/** The document's constraints (`minLength`, `pattern`) on answer field `field` that every value in `values` meets. */
export type Constrain = (field: string, values: string[]) => Record<string, unknown>;

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
  constrain: Constrain,
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
      const signed = values.every((v) => typeof v === 'string' && v !== '');
      properties[key] = { ...(type ? { type } : {}), ...(signed ? { minLength: 1 } : {}) };
      continue;
    }
    if (type === 'object') {
      const inner = infer(
        values as Record<string, unknown>[],
        present.map((x) => x.r),
        notes,
        `${at}${key}.`,
        constrain,
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
      const seen = texts.filter((t): t is string => t !== undefined);
      properties[key] = { ...(type ? { type } : {}), ...(type === 'string' ? constrain(field, seen) : {}) };
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
  constrain: Constrain = () => ({}),
): { template: Template; schema: Record<string, unknown>; notes: string[] } | undefined {
  if (!pairs.length || pairs.every(isDocumentedShape)) return undefined;
  const notes: string[] = [];
  const { template, schema } = infer(
    pairs.map((p) => p.body),
    pairs.map((p) => p.response),
    notes,
    '',
    constrain,
  );
  return { template, schema, notes };
}

/**
 * The document's format of an answer field of `op`, read from the spec's response schema: a value the schema refuses
 * for being empty gives `minLength: 1`; the patterns it refuses a value with are kept where every value seen matches,
 * the strictest of them (the one refusing most variants of the values seen: other case, a character more, a sign).
 */
export function documentFormat(
  spec: SpecModel,
  op: OperationKey,
  response: Record<string, unknown> | undefined,
): Constrain {
  const schemaId = spec.operations.get(op)?.responseSchemaId;
  return (field, values) => {
    if (!schemaId || !response || /[~/]/.test(field) || !values.length) return {};
    const at = (v: string) =>
      spec.validate(schemaId, { ...response, [field]: v }).filter((x) => x.instancePath === `/${field}`);
    const out: Record<string, unknown> = {};
    if (values.every((v) => v !== '') && at('').some((x) => x.keyword === 'minLength')) out.minLength = 1;
    const patterns = [
      ...new Set(
        at('\u0000')
          .filter((x) => x.keyword === 'pattern')
          .map((x) => String(x.params.pattern)),
      ),
    ].filter((p) => values.every((v) => new RegExp(p, 'u').test(v)));
    const variants = values.flatMap((v) => [v.toLowerCase(), v.toUpperCase(), `${v}x`, `${v}0`, `-${v}`]);
    const refused = (p: string) => variants.filter((v) => !new RegExp(p, 'u').test(v)).length;
    const strictest = patterns.sort((a, b) => refused(b) - refused(a))[0];
    if (strictest) out.pattern = strictest;
    return out;
  };
}
