/**
 * The one shape of a finding: stable codes with fixed titles, what was expected and received as data with the
 * "expected … / received …" message derived from them, a location (operation, JSON pointer, exchange) and the masked
 * evidence of the exchanges it rests on. Also the one adapter from schema
 * violations to findings, the check definition helper and the preconditions checks are wrapped in.
 */
import { assertOwnRequirements, findingProse, severityOf } from '../engine/outcome.js';
import { maskText } from '../core/mask.js';
import type {
  Check,
  CheckContext,
  Exchange,
  Finding,
  NotApplicable,
  Observation,
  OperationKey,
  ProbeOf,
} from '../core/model.js';
import type { SchemaViolation } from '../core/spec/ajv.js';
import { type FindingCode, findingTitle } from '../core/types/finding-codes.js';
import { valueAt } from '../core/spec/pointer.js';
import { COMBINATOR_KEYWORDS, FORMAT_KEYWORDS } from '../core/spec/schema-walk.js';
import { findingSteps } from './finding-steps.js';

/**
 * A value as data in a finding: `value` is what was expected or received (masked before it is kept), `before` and
 * `after` are the words around it in the message (`received: quoted(status, 'success ')`).
 */
export interface Quoted {
  value: unknown;
  before?: string;
  after?: string;
}

/** One side of a finding: words (the datum is the text itself), or a value with the words around it. */
export type FindingSide = string | Quoted;

/** A value for one side of a finding, with the words around it in the message. */
export function quoted(value: unknown, before = '', after = ''): Quoted {
  return { value, ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

/** What a check says about one violated property. */
export interface FindingInput {
  code: FindingCode;
  /** Requirement id(s) the finding traces to, among the check's own; its severity is the strongest of their levels. */
  requirement: string | readonly string[];
  /** What should have been observed (no received data here). */
  expected: FindingSide;
  /** What was observed; masked before it is kept or written. */
  received: FindingSide;
  /** JSON pointer into the body (or the form model) the finding is about; '' for the whole exchange. */
  pointer?: string;
  /** The exchange the finding is about; the observation's `main` by default. */
  exchange?: Exchange;
  /** Further exchanges the finding rests on (a refund's payment, the follow-up query), after `exchange`; missing ones are left out. */
  also?: readonly (Exchange | undefined)[];
  /** `info` for information-only findings. */
  severity?: 'info';
  /** A schema finding's failed keyword, its path in the schema and the validator's parameters. */
  schema?: { keyword: string; schemaPath: string; params: Record<string, unknown> };
}

/** Mask a received value for a message: card numbers (Luhn runs and the run's test cards) and the secret never appear in clear. */
function masked(ctx: CheckContext, text: string): string {
  return ctx.mask ? ctx.mask(text) : maskText(text, { cards: Object.values(ctx.config.cards) });
}

/** A received value quoted for a message: strings in quotes, others as JSON, masked, then cut to a readable length. */
export function quote(ctx: CheckContext, value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = masked(
    ctx,
    typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value)),
  );
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** Longest JSON text of a value a finding keeps as data; a longer value is kept as its cut JSON text. */
const MAX_VALUE_CHARS = 2000;

/** A value as a finding keeps it: masked (strings, keys and card-like numbers), `null` for nothing, bounded in size. */
function findingValue(ctx: CheckContext, value: unknown): Finding['expected'] {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return masked(ctx, v);
    if (typeof v === 'number' || typeof v === 'bigint') {
      const text = String(v);
      const out = masked(ctx, text);
      return out === text ? (typeof v === 'bigint' ? text : v) : out;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [masked(ctx, k), walk(x)]));
    return v === undefined ? null : v;
  };
  const out = walk(value);
  const text = JSON.stringify(out) ?? 'null';
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : (out as Finding['expected']);
}

/** The message words of one side: the words, or the value quoted (masked, cut) with the words around it. */
function sideText(ctx: CheckContext, side: FindingSide): string {
  return typeof side === 'string' ? side : `${side.before ?? ''}${quote(ctx, side.value)}${side.after ?? ''}`;
}

/** The datum of one side as a finding keeps it. */
function sideValue(ctx: CheckContext, side: FindingSide): Finding['expected'] {
  return findingValue(ctx, typeof side === 'string' ? side : side.value);
}

/** The one prose form of a finding, "expected … / received …", derived from its two sides (received masked). */
function findingMessage(ctx: CheckContext, expected: FindingSide, received: FindingSide): string {
  return findingProse(sideText(ctx, expected), masked(ctx, sideText(ctx, received)));
}

/**
 * A received side without the short card values the exchange's request sent (`Exchange.sentCardEchoes`): a value
 * equal to one of them is the echo of a card field, masked whole (the exact-place rule of core/mask.ts).
 */
function withoutEchoes(side: FindingSide, exchange: Exchange | undefined): FindingSide {
  const echoes = exchange?.sentCardEchoes;
  if (!echoes?.length || typeof side === 'string') return side;
  const v = side.value;
  return (typeof v === 'string' || typeof v === 'number') && echoes.includes(String(v).trim())
    ? { ...side, value: '***' }
    : side;
}

/** Build one finding. */
export function makeFinding(
  ctx: CheckContext,
  checkId: string,
  operation: OperationKey,
  input: FindingInput,
  fallback?: Exchange,
): Finding {
  const requirementIds = typeof input.requirement === 'string' ? [input.requirement] : [...input.requirement];
  const exchange = input.exchange ?? fallback;
  const received = withoutEchoes(input.received, exchange);
  const rests = [
    ...new Map(
      [exchange, ...(input.also ?? [])].filter((x): x is Exchange => x !== undefined).map((x) => [x.id, x]),
    ).values(),
  ];
  return {
    checkId,
    requirementIds,
    code: input.code,
    severity: input.severity ?? severityOf(ctx.spec, requirementIds),
    title: findingTitle(input.code),
    message: findingMessage(ctx, input.expected, received),
    expected: sideValue(ctx, input.expected),
    received: sideValue(ctx, received),
    ...(input.schema
      ? {
          keyword: input.schema.keyword,
          schemaPath: input.schema.schemaPath,
          params: findingValue(ctx, input.schema.params) as Record<string, unknown>,
        }
      : {}),
    location: {
      operation: exchange?.operation ?? operation,
      pointer: input.pointer ?? '',
      ...(exchange ? { exchangeId: exchange.id } : {}),
    },
    ...(exchange ? { evidence: exchange.evidence } : {}),
    // The steps in the order they were sent, with the identifiers each takes from an earlier answer.
    ...(rests.length > 1 ? { exchanges: findingSteps(rests) } : {}),
  };
}

/** Collects the findings of one check run. */
export type Report = (input: FindingInput) => void;

/**
 * A check that reads the steps of a probe declaring them (`S`; string: a probe without declared steps). `S` is carried
 * only in the type, so preconditions wrapped around it (`wrap`) read the same typed steps.
 */
export interface TypedCheck<S extends string = string> extends Check {
  readonly __steps?: S;
}

/** A precondition or other wrapper of a check reading the steps `S`. */
export type Wrapper<S extends string = string> = (check: TypedCheck<S>) => Check;

/**
 * A check written against a `report` callback; `verify` returns `{ notApplicable }` when the property cannot be
 * judged. `probe` names the probe whose observation it reads: the probe itself when it declares its steps (the steps
 * are then typed: a step it does not declare is a compile error), else its id.
 */
export interface CheckDefinition<S extends string = string> extends Omit<Check, 'run' | 'probe'> {
  probe: ProbeOf<S> | (string extends S ? string : never);
  verify(observation: Observation<S>, ctx: CheckContext, report: Report): void | NotApplicable;
}

/** Operations that make the payment a stateful scenario acts on. */
const PAYMENT_OPERATIONS: ReadonlySet<string> = new Set(['authoriseDirect', 'authoriseApm', 'checkout']);

/**
 * Families of stateful scenarios: a finding of their checks rests on its exchange and on the scenario steps before it
 * back to the payment they act on (the state it rests on).
 */
const SCENARIO_FAMILIES: ReadonlySet<string> = new Set(['lifecycle']);

/**
 * The steps before `exchange` back to the payment they act on, in the order they were made: the payment and the
 * transitions and queries a finding about it rests on (an observation may hold several scenarios, one after another).
 */
function stepsBefore(o: Observation, exchange: Exchange): Exchange[] {
  const all = allSteps(o);
  let from = all.indexOf(exchange);
  if (from < 0) return [];
  const end = from;
  while (from > 0 && !PAYMENT_OPERATIONS.has(all[from]!.operation)) from--;
  return PAYMENT_OPERATIONS.has(all[from]!.operation) && from < end ? all.slice(from, end) : [];
}

/**
 * Turn a definition into a `Check`: every finding of the observation is collected, never only the first. `report`
 * throws `ForeignRequirementError` for a requirement id the check does not list.
 */
export function defineCheck<S extends string = string>(def: CheckDefinition<S>): TypedCheck<S> {
  const { verify, probe, ...meta } = def;
  const scenario = SCENARIO_FAMILIES.has(def.family);
  return {
    ...meta,
    probe: typeof probe === 'string' ? probe : probe.id,
    run(observation, ctx) {
      const findings: Finding[] = [];
      const outcome = verify(observation as Observation<S>, ctx, (input) => {
        assertOwnRequirements(def, typeof input.requirement === 'string' ? [input.requirement] : input.requirement);
        const also = scenario
          ? [...stepsBefore(observation, input.exchange ?? observation.main), ...(input.also ?? [])]
          : input.also;
        findings.push(
          makeFinding(ctx, def.id, observation.operation, { ...input, ...(also ? { also } : {}) }, observation.main),
        );
      });
      return outcome && 'notApplicable' in outcome ? outcome : findings;
    },
  };
}

/** Every step of an observation, declared or not (set-up steps, numbered repeats), in the order they were made. */
export function allSteps(observation: { steps: object }): Exchange[] {
  return Object.values(observation.steps as Record<string, Exchange>);
}

/** Every step of an observation with its name, in the order they were made. */
export function stepEntries(observation: { steps: object }): [string, Exchange][] {
  return Object.entries(observation.steps as Record<string, Exchange>);
}

/**
 * A step whose name the probe computes (one per decline rule, a generated case): the facts name it. Declared steps
 * are read as `o.steps.name`.
 */
export function stepNamed(observation: Observation<string> | { steps: object }, name: string): Exchange | undefined {
  return (observation.steps as Record<string, Exchange | undefined>)[name];
}

/** Which schema failures an adapter call reports. */
export type ViolationKind = 'structure' | 'format' | 'all';

function violationSides(v: SchemaViolation, instance: unknown): { expected: FindingSide; received: FindingSide } {
  const actual = valueAt(instance, v.instancePath);
  const p = v.params;
  switch (v.keyword) {
    case 'required':
      return { expected: `field ${String(p.missingProperty)}`, received: 'no such field' };
    case 'type':
      return {
        expected: `a ${String(p.type)}`,
        received: quoted(
          actual,
          `${Array.isArray(actual) ? 'an array' : actual === null ? 'null' : `a ${typeof actual}`} `,
        ),
      };
    case 'pattern':
      return { expected: `a value of the form ${String(p.pattern)}`, received: quoted(actual) };
    case 'format':
      return { expected: `a ${String(p.format)}`, received: quoted(actual) };
    case 'not':
      return { expected: 'a value outside the form the schema excludes', received: quoted(actual) };
    case 'maxItems':
    case 'minItems':
      return {
        expected: `${v.keyword === 'maxItems' ? 'at most' : 'at least'} ${String(p.limit)} items`,
        received: `${Array.isArray(actual) ? actual.length : 0} items`,
      };
    case 'enum':
    case 'const':
      return { expected: `one of ${JSON.stringify(p.allowedValues ?? p.allowedValue)}`, received: quoted(actual) };
    default:
      return { expected: `a value that satisfies "${v.keyword}" (${v.message})`, received: quoted(actual) };
  }
}

/**
 * The one adapter from ajv violations (`spec.validate`) to findings. Each violation becomes a finding at the level
 * of the requirement its constraint carries (`fallbackRequirement` when the constraint carries none); combinator
 * bookkeeping is dropped when its members failed on their own; duplicates collapse. A format rule (pattern, format,
 * excluded form, bound) is never reported against an empty string.
 */
export function violationFindings(args: {
  ctx: CheckContext;
  report: Report;
  exchange: Exchange;
  instance: unknown;
  violations: readonly SchemaViolation[];
  fallbackRequirement: string;
  kind: ViolationKind;
  /** Prefix of every pointer (e.g. `/inputs` when the instance is a part of the body). */
  pointerPrefix?: string;
}): void {
  const { violations, kind } = args;
  // Format rules apply to non-empty values: the document shows no field's required status, and an empty value is how
  // XML and form answers give a field they have no value for. An empty identifier or amount fails its `minLength`.
  const judged = violations.filter(
    (v) => !(FORMAT_KEYWORDS.has(v.keyword) && valueAt(args.instance, v.instancePath) === ''),
  );
  const own = judged.filter((v) => !COMBINATOR_KEYWORDS.has(v.keyword));
  const chosen = (own.length ? own : judged).filter(
    (v) => kind === 'all' || (kind === 'format') === FORMAT_KEYWORDS.has(v.keyword),
  );
  const seen = new Set<string>();
  for (const v of chosen) {
    const requirement = v.requirementId ?? args.fallbackRequirement;
    const pointer = `${args.pointerPrefix ?? ''}${v.instancePath}${v.keyword === 'required' ? `/${String(v.params.missingProperty)}` : ''}`;
    const key = `${pointer}|${v.keyword}|${requirement}`;
    if (seen.has(key)) continue;
    seen.add(key);
    args.report({
      code: FORMAT_KEYWORDS.has(v.keyword) ? 'FIELD_FORMAT' : 'SCHEMA_VIOLATION',
      requirement,
      pointer,
      exchange: args.exchange,
      schema: { keyword: v.keyword, schemaPath: v.schemaPath, params: v.params },
      ...violationSides(v, args.instance),
    });
  }
}

// ------------------------------------------------------------------ preconditions

/** A predicate over an observation. */
export type Precondition<S extends string = string> = (observation: Observation<S>, ctx: CheckContext) => boolean;

/** Wrap a check so it runs only when `pred` holds; otherwise it is not applicable, with `reason`. */
export function onlyWhen<S extends string = string>(
  pred: Precondition<S>,
  reason: string | ((observation: Observation<S>, ctx: CheckContext) => string),
): Wrapper<S> {
  return (check) => ({
    ...check,
    run(observation, ctx) {
      const o = observation as Observation<S>;
      if (!pred(o, ctx)) return { notApplicable: typeof reason === 'string' ? reason : reason(o, ctx) };
      return check.run(observation, ctx);
    },
  });
}

/** Whether an exchange got a 2xx answer. */
export function succeeded(exchange: Exchange | undefined): boolean {
  const status = exchange?.response?.status;
  return status !== undefined && status >= 200 && status < 300;
}

/** Why an exchange is not a success, in words. */
export function outcomeOf(exchange: Exchange | undefined): string {
  if (!exchange) return 'no exchange';
  if (exchange.error) return `${exchange.error.kind}: ${exchange.error.message}`;
  return `HTTP ${exchange.response?.status ?? '?'}`;
}

/**
 * Wrap a check that judges a successful answer: when the step (the observation's `main` by default) was not
 * answered with 2xx, the check is not applicable (the status check reports that failure once).
 */
export function onlyOnSuccess<S extends string = string>(check: TypedCheck<S>, step?: NoInfer<S>): TypedCheck<S> {
  const exchangeOf = (o: Observation) => (step ? o.steps[step] : o.main);
  return onlyWhen<S>(
    (o) => succeeded(exchangeOf(o as Observation)),
    (o) =>
      `the ${step ?? 'request'} was not answered with success (${outcomeOf(exchangeOf(o as Observation))}); successAnsweredWith200 reports it`,
  )(check) as TypedCheck<S>;
}

/** Wrap a check that needs named steps of a scenario: not applicable when one is missing (the scenario stopped before it). */
export function onlyWithSteps<S extends string = string>(...steps: NoInfer<S>[]): Wrapper<S> {
  const has = (o: Observation<S>, s: S) => stepNamed(o, s) !== undefined;
  return onlyWhen<S>(
    (o) => steps.every((s) => has(o, s)),
    (o) =>
      `the scenario stopped before step ${steps.find((s) => !has(o, s))}${typeof o.facts.stoppedBecause === 'string' ? ` (${o.facts.stoppedBecause})` : ''}`,
  );
}

/** Compose wrappers, outermost first. */
export function wrap<S extends string = string>(
  check: TypedCheck<S>,
  ...wrappers: Wrapper<NoInfer<S>>[]
): TypedCheck<S> {
  return wrappers.reduceRight<TypedCheck<S>>((c, w) => w(c), check);
}
