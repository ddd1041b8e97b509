/**
 * The expected response of a pact interaction walked against the operation's schema and the pact's matching rules:
 * every field, exact value, form (regex) and array size the pact expects is traced to what the interface guarantees
 * (`pactResponseGuaranteed`).
 */
import type { PactInteraction, MatcherList } from './pact-file.js';
import type { OperationModel, SpecModel } from '../core/spec/load.js';
import type { AddFinding } from './observation.js';
import { itemsOf, property, shownRecordGuarantee, URI_PATTERN, type FlatSchema } from './schema.js';
import { pointerOf } from '../core/spec/pointer.js';

/** The requirement saying presence, lengths and allowed values of fields are not shown. */
export const NOT_SHOWN_REQUIREMENT = 'PAGI-GEN-008';

/** Values the document shows on success, and the requirement that shows each. */
const SHOWN_VALUES: Record<string, Record<string, string>> = {
  return_status: { '1': 'PAGI-BAT-005' },
  return_message: { OK: 'PAGI-BAT-005' },
  order_status: { '1': 'PAGI-PAY-008' },
  capture_status: { '1': 'PAGI-BAT-007' },
  cancel_status: { '1': 'PAGI-BAT-007' },
  review_status: { '1': 'PAGI-BAT-007' },
  refund_status: { '1': 'PAGI-BAT-007' },
  error_message: { '': 'PAGI-BAT-007' },
  status: { COMPLETED: 'PAGI-PO-006' },
};

/** Path tokens of a Pact JSONPath (`$.a[*].b`, `$['a']`, `$.a.*`). */
function pathTokens(p: string): string[] {
  const out: string[] = [];
  const re = /\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]|\[(\*|\d+)\]/g;
  let m: RegExpExecArray | null;
  const rest = p.replace(/^\$/, '');
  while ((m = re.exec(rest))) out.push(m[1] ?? m[2]?.replace(/\\'/g, "'") ?? m[3]!);
  return out;
}

/** Matching rules of a response body as (tokens, matchers) pairs. */
export function ruleTable(rules: Record<string, MatcherList> | undefined): { tokens: string[]; list: MatcherList }[] {
  return Object.entries(rules ?? {}).map(([p, list]) => ({
    tokens: pathTokens(p),
    list: Array.isArray((list as any).matchers) ? list : { combine: 'AND', matchers: [list as any] },
  }));
}

function tokensMatch(rule: string[], at: string[]): boolean {
  return (
    rule.length === at.length && rule.every((t, i) => t === '*' || t === at[i] || (/^\d+$/.test(at[i]!) && t === '*'))
  );
}

/** Matchers that apply at a position: its own, or a type matcher on an ancestor (which cascades). */
function matchersAt(table: ReturnType<typeof ruleTable>, at: string[]): { own?: MatcherList; cascaded: boolean } {
  const own = table.find((r) => tokensMatch(r.tokens, at))?.list;
  const cascaded = table.some(
    (r) =>
      r.tokens.length < at.length &&
      tokensMatch(r.tokens, at.slice(0, r.tokens.length)) &&
      r.list.matchers.some((m) => m.match === 'type'),
  );
  return { own, cascaded };
}

/** A JS RegExp for a Pact (Oniguruma/Rust) regex: leading inline flags become JS flags; undefined when not portable. */
function jsRegex(source: string): RegExp | undefined {
  const inline = /^\(\?([a-z]+)\)/.exec(source);
  const flags = inline
    ? [...new Set(inline[1]!.replace('m', 's').split(''))].filter((f) => 'is'.includes(f)).join('')
    : '';
  try {
    return new RegExp(
      source
        .slice(inline ? inline[0].length : 0)
        .replace(/\\A/g, '^')
        .replace(/\\[zZ]/g, '$'),
      flags,
    );
  } catch {
    return undefined;
  }
}

/** Whether a regex accepts the whole value (Pact matches a regex against the whole value). */
function accepts(re: RegExp, value: string): boolean {
  const m = re.exec(value);
  return (
    Boolean(m && m.index === 0 && m[0].length === value.length) ||
    new RegExp(`^(?:${re.source})$`, re.flags).test(value)
  );
}

/** What walking an expected response needs: the operation, the interaction and its request, where findings go. */
export interface WalkContext {
  spec: SpecModel;
  op: OperationModel;
  interaction: PactInteraction;
  request: Record<string, unknown>;
  add: AddFinding;
}

/** The request value a response field echoes, with the rule's requirement; undefined when no echo rule covers it. */
function echoed(ctx: WalkContext, tokens: string[]): { value: unknown; requirement: string } | undefined {
  const { op, request } = ctx;
  if (tokens.length === 1) {
    const rule = op.echo.find((r) => r.fields.includes(tokens[0]!));
    if (rule) return { value: request[tokens[0]!], requirement: rule.requirement };
  }
  const items = op.echoItems;
  if (items && tokens.length === 3 && tokens[0] === items.orders) {
    const requestItems = request[items.orders];
    const item = Array.isArray(requestItems) ? requestItems[Number(tokens[1])] : undefined;
    const field = tokens[2]!;
    if (item && typeof item === 'object') {
      if (items.key.includes(field))
        return { value: (item as Record<string, unknown>)[field], requirement: items.requirement };
      if (items.fields.includes(field))
        return { value: (item as Record<string, unknown>)[field], requirement: items.fieldsRequirement };
    }
  }
  if (op.echoDeep && !op.echoDeep.except.includes(pointerOf(tokens))) {
    let v: unknown = request;
    for (const t of tokens) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[t] : undefined;
    if (v !== undefined) return { value: v, requirement: op.echoDeep.requirement };
  }
  return undefined;
}

/** Least number of items a response array is guaranteed to hold, with the requirement; 0 when nothing is. */
function guaranteedMin(ctx: WalkContext, tokens: string[], flat: FlatSchema): { min: number; requirement?: string } {
  const { op, request, interaction } = ctx;
  if (op.batch && tokens.length === 1 && tokens[0] === op.batch.orders) {
    const items = request[op.batch.orders];
    return { min: Array.isArray(items) ? items.length : 0, requirement: 'PAGI-INV-007' };
  }
  // A payment a provider state made exists, and the query and refund search show it.
  const states = interaction.providerStates?.length ?? 0;
  const shown = shownRecordGuarantee(ctx.spec, op.key);
  if (states && shown && tokens.length === 1 && tokens[0] === shown.field) {
    return { min: 1, requirement: shown.requirement };
  }
  return { min: flat.minItems ?? 0 };
}

/** A position of the walk: the pact's rule table, the path there, and the matchers applying at it. */
interface WalkAt {
  table: ReturnType<typeof ruleTable>;
  tokens: string[];
  /** The pointer findings are located under. */
  base: string;
  /** Where a finding about this position is located. */
  here: string;
  own: MatcherList | undefined;
  cascaded: boolean;
}

/** An expected array: its size against what the interface guarantees, then each item. */
function walkArray(ctx: WalkContext, at: WalkAt, flat: FlatSchema, value: unknown[]): void {
  const { own, cascaded, tokens } = at;
  const item = itemsOf(ctx.spec, flat);
  const typeMatcher = own?.matchers.find((m) => m.match === 'type') as { min?: number; max?: number } | undefined;
  const guaranteed = guaranteedMin(ctx, tokens, flat);
  const expected = typeMatcher ? (typeMatcher.min ?? 0) : cascaded ? 0 : value.length;
  if (expected > guaranteed.min) {
    ctx.add(
      'ARRAY_SIZE_NOT_SHOWN',
      guaranteed.requirement ? [guaranteed.requirement] : [NOT_SHOWN_REQUIREMENT],
      {
        expected: `at most ${guaranteed.min} item(s) required at ${pointerOf(tokens) || '/'} (what the interface guarantees)`,
        received: `an expectation of ${expected}${typeMatcher ? ' (type matcher min)' : ' (exact array, no matcher)'}`,
      },
      at.here,
    );
  }
  value.forEach((v, i) => item && walkExpected(ctx, at.table, item, v, [...tokens, String(i)], at.base));
}

/** An expected object: each field must be one the interface lists, and guaranteed present; then its value. */
function walkObject(ctx: WalkContext, at: WalkAt, flat: FlatSchema, value: Record<string, unknown>): void {
  const { tokens, base } = at;
  for (const [name, sub] of Object.entries(value)) {
    const child = property(ctx.spec, flat, name);
    const childTokens = [...tokens, name];
    const where = `${base}${pointerOf(childTokens)}`;
    if (!child) {
      ctx.add(
        'FIELD_NOT_SHOWN',
        [],
        {
          expected: `a field the interface lists at ${pointerOf(tokens) || '/'}`,
          received: `an expectation of ${JSON.stringify(name)}, which the interface does not show`,
        },
        where,
      );
      continue;
    }
    if (!flat.required.has(name)) {
      ctx.add(
        'PRESENCE_NOT_SHOWN',
        [NOT_SHOWN_REQUIREMENT],
        {
          expected: `only fields the interface guarantees present`,
          received: `an expectation of ${pointerOf(childTokens)}, whose presence the document does not state (required status: not shown)`,
        },
        where,
      );
    }
    walkExpected(ctx, at.table, child, sub, childTokens, base);
  }
}

/** A scalar's regex matcher: it must accept every value of the field's format, or any string when none is shown. */
function checkRegexMatcher(ctx: WalkContext, at: WalkAt, flat: FlatSchema, regex: string): void {
  const re = jsRegex(regex);
  if (!re) return;
  const samples = [...new Set([...flat.examples.filter((e): e is string => typeof e === 'string')])];
  const patterns = flat.patterns.map((p) => p.pattern).concat(flat.format?.pattern === 'uri' ? [URI_PATTERN] : []);
  const requirement = flat.patterns[0]?.requirement ?? flat.format?.requirement;
  if (patterns.length) {
    const rejected = samples.filter((s) => !accepts(re, s));
    if (rejected.length) {
      ctx.add(
        'FORM_NARROWER',
        requirement ? [requirement] : [NOT_SHOWN_REQUIREMENT],
        {
          expected: `a regex accepting every value of the field's format (${flat.formatName ?? patterns[0]})`,
          received: `${regex}, which rejects ${JSON.stringify(rejected[0])}`,
        },
        at.here,
      );
    }
  } else if (!['', 'x', 'Any text, 123'].every((s) => accepts(re, s))) {
    ctx.add(
      'FORM_NARROWER',
      [NOT_SHOWN_REQUIREMENT],
      {
        expected: `any string (the document shows no form, length or value set for this field)`,
        received: `the regex ${regex}`,
      },
      at.here,
    );
  }
}

/** A scalar's own matchers: no regex narrower than the field's form, no number matcher on a string field. */
function checkScalarMatchers(ctx: WalkContext, at: WalkAt, flat: FlatSchema, own: MatcherList): void {
  for (const m of own.matchers) {
    if (m.match === 'regex') checkRegexMatcher(ctx, at, flat, String((m as { regex: string }).regex));
    else if ((m.match === 'integer' || m.match === 'number' || m.match === 'decimal') && flat.type === 'string') {
      ctx.add(
        'RESPONSE_SCHEMA',
        [flat.typeRequirement ?? 'PAGI-GEN-006'],
        { expected: `a string (the field's type)`, received: `a ${m.match} matcher` },
        at.here,
      );
    }
  }
}

/** A scalar expected exactly: only a value the request echoes or the document shows on success. */
function checkExactValue(ctx: WalkContext, at: WalkAt, value: unknown): void {
  const { tokens } = at;
  const text = value === null ? 'null' : String(value);
  const echo = echoed(ctx, tokens);
  if (echo && String(echo.value) === text) return;
  const shown = SHOWN_VALUES[tokens[tokens.length - 1]!]?.[text];
  if (shown && ctx.spec.operations.get(ctx.op.key)?.requirements.includes(shown)) return;
  ctx.add(
    'VALUE_NOT_SHOWN',
    echo ? [echo.requirement] : [NOT_SHOWN_REQUIREMENT],
    echo
      ? {
          expected: `the request's value ${JSON.stringify(echo.value)} (echoed)`,
          received: `an expectation of exactly ${JSON.stringify(value)}`,
        }
      : {
          expected: `a matcher (the interface does not fix this value)`,
          received: `an expectation of exactly ${JSON.stringify(value)}`,
        },
    at.here,
  );
}

/** Walk an expected response value against its schema and the pact's matchers. */
export function walkExpected(
  ctx: WalkContext,
  table: ReturnType<typeof ruleTable>,
  flat: FlatSchema,
  value: unknown,
  tokens: string[],
  base: string,
): void {
  const { own, cascaded } = matchersAt(table, tokens);
  const at: WalkAt = { table, tokens, base, here: `${base}${pointerOf(tokens)}`, own, cascaded };
  if (Array.isArray(value)) walkArray(ctx, at, flat, value);
  else if (value && typeof value === 'object') walkObject(ctx, at, flat, value as Record<string, unknown>);
  // A scalar: its matchers, or its exact value.
  else if (own) checkScalarMatchers(ctx, at, flat, own);
  else if (!cascaded) checkExactValue(ctx, at, value);
}
