/**
 * Matchers derived from the spec's schemas: a body template (example values, each leaf with the matchers its
 * schema gives: the regexes of its formats, its JSON type, array minima) and its conversion to Pact V4 matching
 * rules for JSON and XML bodies, or to `@pact-foundation/pact` V3 matcher objects for a merchant's own tests.
 */
import type { SpecModel } from '../core/spec/load.js';
import { childPointer } from '../core/spec/pointer.js';
import { writeXml } from '../core/codecs/xml.js';
import type { Matcher, MatcherList, MatchingRules } from './pact-file.js';
import { flatten, itemsOf, property, rustCompatible, URI_PATTERN, type FlatSchema } from './schema.js';

/** A template leaf or array: a value with the matchers it must satisfy. */
export interface Matched {
  readonly pagiMatched: true;
  matchers: Matcher[];
  /** Example value; for an array, the one-element list of item templates. */
  value: unknown;
  /** Requirement ids the matchers come from. */
  requirements: string[];
}

/** A body template: plain objects holding `Matched` leaves. */
export type Template = Matched | { [name: string]: Template } | string | number | boolean | null;

function isMatched(value: unknown): value is Matched {
  return typeof value === 'object' && value !== null && (value as Matched).pagiMatched === true;
}

function matched(matchers: Matcher[], value: unknown, requirements: (string | undefined)[]): Matched {
  return {
    pagiMatched: true,
    matchers,
    value,
    requirements: [...new Set(requirements.filter((r): r is string => Boolean(r)))],
  };
}

/** The matchers a scalar position's schema gives (regexes of its patterns and format, else its JSON type). */
function leafMatchers(flat: FlatSchema): { matchers: Matcher[]; requirements: (string | undefined)[] } {
  if (flat.type === 'number') return { matchers: [{ match: 'number' }], requirements: [flat.typeRequirement] };
  if (flat.type === 'integer') return { matchers: [{ match: 'integer' }], requirements: [flat.typeRequirement] };
  const regexes = flat.patterns.filter((p) => rustCompatible(p.pattern));
  const out: Matcher[] = regexes.map((p) => ({ match: 'regex', regex: p.pattern }));
  const requirements = regexes.map((p) => p.requirement);
  if (flat.format?.pattern === 'uri') {
    out.push({ match: 'regex', regex: URI_PATTERN });
    requirements.push(flat.format.requirement);
  }
  if (!out.length) return { matchers: [{ match: 'type' }], requirements: [flat.typeRequirement ?? flat.requirement] };
  return { matchers: out, requirements };
}

/** How a template is built. */
export interface TemplateOptions {
  /** `required`: only what the schema guarantees present; `all`: every field of the example. */
  fields: 'required' | 'all';
  /** Least number of items an array at `pointer` must hold (default: the schema's `minItems`, else 0). */
  arrayMin?: (pointer: string) => { min: number; requirement?: string } | undefined;
}

function exampleScalar(flat: FlatSchema, example: unknown): unknown {
  if (example !== undefined && (typeof example !== 'object' || example === null)) return example;
  const first = flat.examples.find((e) => typeof e !== 'object');
  if (first !== undefined) return first;
  return flat.type === 'number' || flat.type === 'integer' ? 0 : flat.type === 'boolean' ? false : '';
}

/** The template of `example` at a schema position. */
export function buildTemplate(
  spec: SpecModel,
  flat: FlatSchema,
  example: unknown,
  options: TemplateOptions,
  pointer = '',
): Template {
  const isObject =
    flat.type === 'object' ||
    (!flat.type && flat.properties.size > 0) ||
    (!flat.type && example !== null && typeof example === 'object' && !Array.isArray(example));
  if (flat.type === 'array' || Array.isArray(example)) {
    const item = itemsOf(spec, flat) ?? flatten(spec, { node: {}, base: '' });
    const first = Array.isArray(example) ? example[0] : undefined;
    const fixed = options.arrayMin?.(pointer);
    const min = Math.max(flat.minItems ?? 0, fixed?.min ?? 0);
    const items = first === undefined && min === 0 ? [] : [buildTemplate(spec, item, first, options, `${pointer}/0`)];
    return matched([{ match: 'type', min }], items, [flat.requirement, fixed?.requirement]);
  }
  if (isObject) {
    const source = example && typeof example === 'object' ? (example as Record<string, unknown>) : {};
    const names =
      options.fields === 'all'
        ? Object.keys(source)
        : [
            ...Object.keys(source).filter((k) => flat.required.has(k)),
            ...[...flat.required.keys()].filter((k) => !(k in source)),
          ];
    const out: Record<string, Template> = {};
    for (const name of names) {
      const sub = property(spec, flat, name) ?? flatten(spec, { node: {}, base: '' });
      out[name] = buildTemplate(spec, sub, source[name], options, childPointer(pointer, name));
    }
    return out;
  }
  const { matchers, requirements } = leafMatchers(flat);
  return matched(matchers, exampleScalar(flat, example), requirements);
}

/** A JSONPath member step as Pact writes it (`.name`, or `['name']` for names outside `[A-Za-z0-9_-]`). */
function step(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(name) ? `.${name}` : `['${name.replace(/'/g, "\\'")}']`;
}

function list(matchers: Matcher[]): MatcherList {
  return { combine: 'AND', matchers };
}

/** A JSON template as the content and body matching rules of a Pact V4 body. */
export function toJsonBody(template: Template): { content: unknown; rules: Record<string, MatcherList> } {
  const rules: Record<string, MatcherList> = {};
  const walk = (node: Template, path: string): unknown => {
    if (isMatched(node)) {
      rules[path] = list(node.matchers);
      if (Array.isArray(node.value)) return (node.value as Template[]).map((item) => walk(item, `${path}[*]`));
      return node.value;
    }
    if (node && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, `${path}${step(k)}`)]));
    return node;
  };
  return { content: walk(template, '$'), rules };
}

/** An XML template (the children of `root`) as the document and its Pact V4 XML matching rules. */
export function toXmlBody(root: string, template: Template): { content: string; rules: Record<string, MatcherList> } {
  const rules: Record<string, MatcherList> = {};
  const walk = (node: Template, path: string): unknown => {
    if (isMatched(node)) {
      if (Array.isArray(node.value)) {
        rules[path] = list(node.matchers);
        return (node.value as Template[]).map((item) => walk(item, `${path}[*]`));
      }
      rules[`${path}['#text']`] = list(node.matchers);
      return node.value;
    }
    if (node && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, `${path}.${k}`)]));
    return node;
  };
  const value = walk(template, `$.${root}`) as Record<string, unknown>;
  return { content: writeXml(root, value), rules };
}

/** A template as `@pact-foundation/pact` V3 matcher objects (`like`, `regex`, `integer`, `number`, `eachLike`). */
export function toPactJs(template: Template): unknown {
  if (isMatched(template)) {
    if (Array.isArray(template.value)) {
      const items = (template.value as Template[]).map(toPactJs);
      const min = (template.matchers[0] as { min?: number }).min ?? 0;
      return { 'pact:matcher:type': 'type', min, value: items };
    }
    const regexes = template.matchers.filter((m): m is { match: 'regex'; regex: string } => m.match === 'regex');
    // One regex per position in the V3 DSL: the last is the strictest (schemas add stricter forms in allOf).
    if (regexes.length)
      return { 'pact:matcher:type': 'regex', regex: regexes[regexes.length - 1]!.regex, value: template.value };
    const kind = template.matchers[0]?.match;
    if (kind === 'integer' || kind === 'number' || kind === 'decimal')
      return { 'pact:matcher:type': kind, value: template.value };
    return { 'pact:matcher:type': 'type', value: template.value };
  }
  if (template && typeof template === 'object')
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, toPactJs(v)]));
  return template;
}

/** Matching rules of a body, in the category layout of a Pact V4 request or response. */
export function bodyRules(
  rules: Record<string, MatcherList>,
  header?: Record<string, MatcherList>,
): MatchingRules | undefined {
  const out: MatchingRules = {};
  if (Object.keys(rules).length) out.body = rules;
  if (header && Object.keys(header).length) out.header = header;
  return Object.keys(out).length ? out : undefined;
}
