/**
 * fast-check arbitraries read from the kit's JSON Schemas: a value valid for the subschemas at a point of a request
 * (enum, const, pattern, format, type, properties, items), so the deep family generates requests from the spec and
 * never from a generator written per field. Values the spec gives as `examples` are mixed in, as the document shows
 * them occurring.
 */
import fc from 'fast-check';
import type { SpecModel } from '../core/spec/load.js';
import { type SchemaAt, itemSchemas, propertySchemas } from '../core/spec/schema-walk.js';

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  date: () =>
    fc
      .date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  'date-time': () =>
    fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().replace(/\.\d{3}Z$/, '+00:00')),
  email: () => fc.emailAddress(),
  uuid: () => fc.uuid(),
  ipv4: () => fc.ipV4(),
};

/** Strings matching a pattern; undefined for a pattern fast-check cannot generate from (lookaround). */
function patternArbitrary(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return undefined;
  }
}

/** Formats a request value must never take from a generator: a URL the gateway would request (only loopback traffic). */
const UNGENERATED_FORMATS: ReadonlySet<string> = new Set(['uri', 'url', 'iri', 'uri-reference']);

/** Whether the subschemas at a point ask for a URL (never generated: the gateway would contact it). */
export function isUrl(ats: readonly SchemaAt[]): boolean {
  return ats.some((a) => typeof a.node.format === 'string' && UNGENERATED_FORMATS.has(a.node.format));
}

/**
 * An arbitrary of values valid for `ats` (already expanded), or undefined when the schema gives nothing to generate
 * from (an open `{}` or a URL). `depth` bounds nested objects and arrays.
 */
export function schemaArbitrary(
  spec: SpecModel,
  ats: readonly SchemaAt[],
  depth = 3,
): fc.Arbitrary<unknown> | undefined {
  if (!ats.length || isUrl(ats)) return undefined;
  const shown = [...new Set(ats.flatMap((a) => (Array.isArray(a.node.examples) ? a.node.examples : [])))];
  const constant = ats.find((a) => a.node.const !== undefined)?.node.const;
  if (constant !== undefined) return fc.constant(constant);
  const enumerated = ats.find((a) => Array.isArray(a.node.enum))?.node.enum as unknown[] | undefined;
  if (enumerated?.length) return fc.constantFrom(...enumerated);
  const types = new Set(
    ats.flatMap((a) => (Array.isArray(a.node.type) ? a.node.type : a.node.type ? [a.node.type] : [])),
  );
  const own = ((): fc.Arbitrary<unknown> | undefined => {
    if (types.has('object') || ats.some((a) => a.node.properties)) {
      if (depth <= 0) return undefined;
      const names = [...new Set(ats.flatMap((a) => Object.keys(a.node.properties ?? {})))];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const name of names) {
        const arb = schemaArbitrary(spec, propertySchemas(spec, ats, name), depth - 1);
        if (arb) model[name] = arb;
      }
      return fc.record(model, { requiredKeys: [], noNullPrototype: true });
    }
    if (types.has('array') || ats.some((a) => a.node.items)) {
      if (depth <= 0) return undefined;
      const item = schemaArbitrary(spec, itemSchemas(spec, ats), depth - 1);
      const max = Math.min(3, ...ats.map((a) => (typeof a.node.maxItems === 'number' ? a.node.maxItems : 3)));
      return item ? fc.array(item, { maxLength: max }) : undefined;
    }
    if (types.has('integer')) return fc.integer({ min: 0, max: 1_000_000 });
    if (types.has('number')) return fc.double({ min: 0, max: 1_000_000, noNaN: true, noDefaultInfinity: true });
    if (types.has('boolean')) return fc.boolean();
    // Every pattern applies (a member of allOf narrows its parent's): generate from the last, keep what all match.
    const patterns = ats.flatMap((a) => (typeof a.node.pattern === 'string' ? [new RegExp(a.node.pattern, 'u')] : []));
    if (patterns.length)
      return patternArbitrary(patterns[patterns.length - 1]!.source)?.filter((v) => patterns.every((p) => p.test(v)));
    const format = ats.find((a) => typeof a.node.format === 'string')?.node.format as string | undefined;
    if (format) return FORMATS[format]?.();
    if (types.has('string') || types.size === 0) {
      const maxLength = Math.min(40, ...ats.map((a) => (typeof a.node.maxLength === 'number' ? a.node.maxLength : 40)));
      return fc.string({ minLength: 1, maxLength });
    }
    return undefined;
  })();
  if (own && shown.length) return fc.oneof(fc.constantFrom(...shown), own);
  return own ?? (shown.length ? fc.constantFrom(...shown) : undefined);
}

/** Strings breaking a value's written form (a candidate is kept only where the validator says it breaks the rule). */
export function offFormArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('', 'x', '1.2.3', '@@@', '10,36', 'AB', '2024-13-45', '-1'),
    fc.string({ minLength: 1, maxLength: 12 }),
  );
}

/** Values of another JSON type than a string. */
export function wrongTypeArbitrary(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2, noNullPrototype: true }),
  );
}
