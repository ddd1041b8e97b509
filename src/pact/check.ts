/**
 * A merchant's pact checked against the interface, without any gateway: each interaction's request is validated
 * against the spec (path, method, media type, schema, limits), and each expectation of its response is traced to
 * what the interface guarantees (status, media type, XML `respon` and HTML checkout forms, field presence, formats,
 * exact values, array sizes). An expectation nothing in the document backs is a finding carrying the requirement
 * that says so (`PAGI-GEN-008`: presence and allowed values are not shown) or none ("not shown"). The findings travel
 * in the results model of a run, so `run`'s reporters write them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { decodeForm } from '../codecs/form.js';
import { readCheckoutForm } from '../codecs/html.js';
import { normaliseArrays, readXml } from '../codecs/xml.js';
import { maskText, maskValue } from '../mask.js';
import { SEVERITY_ORDER } from '../run-result.js';
import type { FailOn } from '../config/options.js';
import type { CheckResult, Family, Finding, OperationKey, RunResult, Severity } from '../model.js';
import { loadProfile, type Profile } from '../profile/load.js';
import { kitSpec, type OperationModel, type SpecModel } from '../spec/load.js';
import { KIT_ROOT } from '../spec/paths.js';
import { buildRunResult } from '../engine/results.js';
import { findingProse } from '../engine/outcome.js';
import type { PlannedTest } from '../engine/plan.js';
import type { KitReporter } from '../reporter.js';
import {
  bodyText,
  headerValue,
  type MatcherList,
  type PactBody,
  type PactFile,
  type PactInteraction,
} from './pact-file.js';
import { flatten, itemsOf, property, URI_PATTERN, type FlatSchema } from './schema.js';
import { operationOf } from './verify.js';

const KIT_VERSION: string = JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'package.json'), 'utf8')).version;

/** The requirement saying presence, lengths and allowed values of fields are not shown. */
/** What a pact finding expected and received, as data; its message is derived from them. */
interface Sides {
  expected: string;
  received: string | null;
}

/** The display message of a pact finding (`expected … / received …`, or `expected …` where nothing was received). */
function sidesProse(sides: Sides): string {
  return sides.received === null ? `expected ${sides.expected}` : findingProse(sides.expected, sides.received);
}

const NOT_SHOWN_REQUIREMENT = 'PAGI-GEN-008';

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

/** The checks of a pact check: id, family, title of its findings' codes. */
const CHECKS = {
  pactRequestFollowsSpec: {
    family: 'shape' as Family,
    description: 'The pact request is a request of the interface: path, method and body as the spec describes them.',
  },
  pactRequestWithinLimits: {
    family: 'limits' as Family,
    description: 'The pact request stays within the order limits of the interface.',
  },
  pactMediaTypesShown: {
    family: 'media' as Family,
    description: 'The request and response media types the pact names are those of the interface.',
  },
  pactStatusShown: {
    family: 'status' as Family,
    description: 'The response status the pact expects is one the interface lists for the operation.',
  },
  pactResponseGuaranteed: {
    family: 'shape' as Family,
    description: 'Every response expectation of the pact is guaranteed by the interface: fields, forms, values, sizes.',
  },
};
type CheckId = keyof typeof CHECKS;

/** Finding codes and their fixed titles. */
const CODES = {
  PATH_NOT_SHOWN: 'Path not in the interface',
  METHOD_NOT_POST: 'Method is not POST',
  REQUEST_SCHEMA: 'Request differs from the interface',
  LIMIT_EXCEEDED: 'Request over the interface limit',
  REQUEST_MEDIA: 'Request media type not of the interface',
  RESPONSE_MEDIA: 'Response media type not guaranteed',
  STATUS_NOT_SHOWN: 'Response status not listed for the operation',
  BODY_FORM: 'Expected body is not in the response format',
  RESPONSE_SCHEMA: 'Expected value contradicts the interface',
  FIELD_NOT_SHOWN: 'Expected field not in the interface',
  PRESENCE_NOT_SHOWN: 'Expected field not guaranteed present',
  VALUE_NOT_SHOWN: 'Exact value not guaranteed',
  FORM_NARROWER: 'Expected form narrower than the interface',
  ARRAY_SIZE_NOT_SHOWN: 'Array size not guaranteed',
} as const;
type Code = keyof typeof CODES;

/** Read a pact file (V3 or V4 JSON); throws with one sentence when it cannot be used. */
export function readPactFile(file: string): PactFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read pact ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let value: any;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON`);
  }
  if (!value || !Array.isArray(value.interactions))
    throw new Error(`${file} is not a pact: it has no interactions list`);
  return value as PactFile;
}

/** A body as a JSON value (V3 bodies are the value itself, V4 bodies an object with `content`). */
function normaliseBody(body: unknown, contentType: string | undefined): PactBody | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'object' && !Array.isArray(body) && 'content' in (body as object)) return body as PactBody;
  return {
    content: body,
    contentType: contentType ?? (typeof body === 'string' ? 'text/plain' : 'application/json'),
    encoded: false,
  };
}

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
function ruleTable(rules: Record<string, MatcherList> | undefined): { tokens: string[]; list: MatcherList }[] {
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

interface Context {
  spec: SpecModel;
  op: OperationModel;
  interaction: PactInteraction;
  index: number;
  request: Record<string, unknown>;
  add(check: CheckId, code: Code, requirementIds: string[], sides: Sides, pointer: string, severity?: Severity): void;
}

function levelOf(spec: SpecModel, id: string | undefined): Severity {
  const level = id ? spec.requirements.get(id)?.level : undefined;
  // An expectation resting on something the document leaves unshown breaks no stated rule: never reported as must.
  return level === 'must' || level === 'expected' || level === 'profile' || level === 'invariant' ? level : 'expected';
}

function pointerOf(tokens: string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The request value a response field echoes, with the rule's requirement; undefined when no echo rule covers it. */
function echoed(ctx: Context, tokens: string[]): { value: unknown; requirement: string } | undefined {
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
function guaranteedMin(ctx: Context, tokens: string[], flat: FlatSchema): { min: number; requirement?: string } {
  const { op, request, interaction } = ctx;
  if (op.batch && tokens.length === 1 && tokens[0] === op.batch.orders) {
    const items = request[op.batch.orders];
    return { min: Array.isArray(items) ? items.length : 0, requirement: 'PAGI-INV-007' };
  }
  // A payment a provider state made exists, and the query and refund search show it.
  const states = interaction.providerStates?.length ?? 0;
  if (
    states &&
    tokens.length === 1 &&
    ((op.key === 'retrievalTrans' && tokens[0] === 'orders_list') ||
      (op.key === 'retrievalRefund' && tokens[0] === 'refund_orders'))
  ) {
    return { min: 1, requirement: op.key === 'retrievalTrans' ? 'PAGI-INV-004' : 'PAGI-INV-005' };
  }
  return { min: flat.minItems ?? 0 };
}

/** Walk an expected response value against its schema and the pact's matchers. */
function walkExpected(
  ctx: Context,
  table: ReturnType<typeof ruleTable>,
  flat: FlatSchema,
  value: unknown,
  tokens: string[],
  base: string,
): void {
  const { own, cascaded } = matchersAt(table, tokens);
  const here = `${base}${pointerOf(tokens)}`;
  if (Array.isArray(value)) {
    const item = itemsOf(ctx.spec, flat);
    const typeMatcher = own?.matchers.find((m) => m.match === 'type') as { min?: number; max?: number } | undefined;
    const guaranteed = guaranteedMin(ctx, tokens, flat);
    const expected = typeMatcher ? (typeMatcher.min ?? 0) : cascaded ? 0 : value.length;
    if (expected > guaranteed.min) {
      ctx.add(
        'pactResponseGuaranteed',
        'ARRAY_SIZE_NOT_SHOWN',
        guaranteed.requirement ? [guaranteed.requirement] : [NOT_SHOWN_REQUIREMENT],
        {
          expected: `at most ${guaranteed.min} item(s) required at ${pointerOf(tokens) || '/'} (what the interface guarantees)`,
          received: `an expectation of ${expected}${typeMatcher ? ' (type matcher min)' : ' (exact array, no matcher)'}`,
        },
        here,
      );
    }
    value.forEach((v, i) => item && walkExpected(ctx, table, item, v, [...tokens, String(i)], base));
    return;
  }
  if (value && typeof value === 'object') {
    for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
      const child = property(ctx.spec, flat, name);
      const childTokens = [...tokens, name];
      const where = `${base}${pointerOf(childTokens)}`;
      if (!child) {
        ctx.add(
          'pactResponseGuaranteed',
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
          'pactResponseGuaranteed',
          'PRESENCE_NOT_SHOWN',
          [NOT_SHOWN_REQUIREMENT],
          {
            expected: `only fields the interface guarantees present`,
            received: `an expectation of ${pointerOf(childTokens)}, whose presence the document does not state (required status: not shown)`,
          },
          where,
        );
      }
      walkExpected(ctx, table, child, sub, childTokens, base);
    }
    return;
  }
  // A scalar: its matchers, or its exact value.
  const text = value === null ? 'null' : String(value);
  if (own) {
    for (const m of own.matchers) {
      if (m.match === 'regex') {
        const re = jsRegex(String((m as { regex: string }).regex));
        if (!re) continue;
        const samples = [...new Set([...flat.examples.filter((e): e is string => typeof e === 'string')])];
        const patterns = flat.patterns
          .map((p) => p.pattern)
          .concat(flat.format?.pattern === 'uri' ? [URI_PATTERN] : []);
        const requirement = flat.patterns[0]?.requirement ?? flat.format?.requirement;
        if (patterns.length) {
          const rejected = samples.filter((s) => !accepts(re, s));
          if (rejected.length) {
            ctx.add(
              'pactResponseGuaranteed',
              'FORM_NARROWER',
              requirement ? [requirement] : [NOT_SHOWN_REQUIREMENT],
              {
                expected: `a regex accepting every value of the field's format (${flat.formatName ?? patterns[0]})`,
                received: `${String((m as { regex: string }).regex)}, which rejects ${JSON.stringify(rejected[0])}`,
              },
              here,
            );
          }
        } else if (!['', 'x', 'Any text, 123'].every((s) => accepts(re, s))) {
          ctx.add(
            'pactResponseGuaranteed',
            'FORM_NARROWER',
            [NOT_SHOWN_REQUIREMENT],
            {
              expected: `any string (the document shows no form, length or value set for this field)`,
              received: `the regex ${String((m as { regex: string }).regex)}`,
            },
            here,
          );
        }
      } else if ((m.match === 'integer' || m.match === 'number' || m.match === 'decimal') && flat.type === 'string') {
        ctx.add(
          'pactResponseGuaranteed',
          'RESPONSE_SCHEMA',
          [flat.typeRequirement ?? 'PAGI-GEN-006'],
          { expected: `a string (the field's type)`, received: `a ${m.match} matcher` },
          here,
          levelOf(ctx.spec, flat.typeRequirement ?? 'PAGI-GEN-006'),
        );
      }
    }
    return;
  }
  if (cascaded) return;
  const echo = echoed(ctx, tokens);
  if (echo && String(echo.value) === text) return;
  const shown = SHOWN_VALUES[tokens[tokens.length - 1]!]?.[text];
  if (shown && ctx.spec.operations.get(ctx.op.key)?.requirements.includes(shown)) return;
  ctx.add(
    'pactResponseGuaranteed',
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
    here,
  );
}

const BATCH_LIMIT = /^PAGI-LIM-/;

/** Requirements each check covers on an operation, whether or not it finds anything. */
function coveredRequirements(op: OperationModel, check: CheckId): string[] {
  const media = op.requirements.filter((r) => /^PAGI-MED-/.test(r));
  switch (check) {
    case 'pactRequestFollowsSpec':
      return ['PAGI-GEN-001', 'PAGI-GEN-002', 'PAGI-GEN-003', 'PAGI-AUTH-001'];
    case 'pactRequestWithinLimits':
      return [op.batch?.limitRequirement ?? op.selectionLimit?.requirement].filter((r): r is string => Boolean(r));
    case 'pactMediaTypesShown':
      return media;
    case 'pactStatusShown':
      return ['PAGI-GEN-007', ...op.requirements.filter((r) => r === 'PAGI-APM-004' || r === 'PAGI-APM-005')];
    case 'pactResponseGuaranteed':
      return ['PAGI-GEN-004', NOT_SHOWN_REQUIREMENT];
  }
}

function checkInteraction(
  spec: SpecModel,
  profile: Profile,
  interaction: PactInteraction,
  index: number,
  add: (op: OperationKey | undefined, check: CheckId, finding: Omit<Finding, 'checkId'>) => void,
): OperationKey | undefined {
  const where = `/interactions/${index}`;
  const request = interaction.request ?? ({} as PactInteraction['request']);
  const pathOnly = (request.path ?? '').split('?')[0]!;
  const reqContentType =
    headerValue(request.headers as Record<string, unknown>, 'content-type') ??
    (request.body as PactBody | undefined)?.contentType;
  const reqBody = normaliseBody(request.body, reqContentType);
  const text = bodyText(reqBody);
  let body: Record<string, unknown> = {};
  if (reqBody && typeof reqBody.content === 'object' && reqBody.content && reqBody.encoded === false)
    body = reqBody.content as Record<string, unknown>;
  else if (text !== undefined) {
    try {
      body = text.trimStart().startsWith('{') ? JSON.parse(text) : decodeForm(text);
    } catch {
      body = {};
    }
  }
  const key = operationOf(spec, pathOnly, body);
  const op = key ? spec.operations.get(key)! : undefined;
  const finding = (
    check: CheckId,
    code: Code,
    requirementIds: string[],
    sides: Sides,
    pointer: string,
    severity?: Severity,
  ) =>
    add(key, check, {
      requirementIds,
      code,
      severity: severity ?? levelOf(spec, requirementIds[0]),
      title: CODES[code],
      message: sidesProse(sides),
      ...sides,
      location: { operation: key ?? 'external', pointer, exchangeId: interaction.description },
    });
  if (!op) {
    const versioned = pathOnly.startsWith('/v1/');
    finding(
      'pactRequestFollowsSpec',
      'PATH_NOT_SHOWN',
      versioned ? [] : ['PAGI-GEN-002'],
      {
        expected: `a path of the interface (${[...new Set([...spec.operations.values()].map((o) => o.path))].join(', ')})`,
        received: `${JSON.stringify(request.path)}`,
      },
      `${where}/request/path`,
    );
    return undefined;
  }
  if ((request.method ?? '').toUpperCase() !== 'POST')
    finding(
      'pactRequestFollowsSpec',
      'METHOD_NOT_POST',
      ['PAGI-GEN-001'],
      { expected: `POST`, received: `${JSON.stringify(request.method)}` },
      `${where}/request/method`,
    );
  // Media type of the request: one the spec lists for the operation (declared, or used by the document's examples).
  const mediaRequirement =
    op.requirements.find((r) => ['PAGI-MED-001', 'PAGI-MED-002', 'PAGI-MED-003'].includes(r)) ?? 'PAGI-MED-001';
  const reqBase = (reqContentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (reqBase && !op.requestMedia.some((m) => m.type === reqBase)) {
    finding(
      'pactMediaTypesShown',
      'REQUEST_MEDIA',
      [mediaRequirement],
      { expected: `one of ${op.requestMedia.map((m) => m.type).join(', ')}`, received: `${reqContentType}` },
      `${where}/request/headers`,
    );
  } else if (reqBase && !profile.requestMedia.acceptOther) {
    // Which declared type a gateway enforces is not shown (rule 6): the profile says, and this one takes only its own.
    const wanted =
      profile.requestMedia.types[op.key] === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
    if (reqBase !== wanted)
      finding(
        'pactMediaTypesShown',
        'REQUEST_MEDIA',
        ['PAGI-MED-005'],
        {
          expected: `${wanted} (the profile ${profile.name} accepts no other type for ${op.key})`,
          received: `${reqContentType}`,
        },
        `${where}/request/headers`,
      );
  }
  // Query and refund search: the orders a request selects (through the profile's selection fields) stay within the limit.
  const selection = (
    profile.selection as Record<string, { fields: string[]; listSeparator: string; combine: string } | undefined>
  )[op.key];
  if (op.selectionLimit && selection) {
    const counts = selection.fields.map((f) =>
      typeof body[f] === 'string' && body[f] !== '' ? String(body[f]).split(selection.listSeparator).length : 0,
    );
    const selected = selection.combine === 'union' ? counts.reduce((a, b) => a + b, 0) : Math.max(0, ...counts);
    if (selected > op.selectionLimit.maxOrders) {
      finding(
        'pactRequestWithinLimits',
        'LIMIT_EXCEEDED',
        [op.selectionLimit.requirement],
        {
          expected: `at most ${op.selectionLimit.maxOrders} orders per request`,
          received: `a selection of ${selected} (${selection.fields.join(', ')})`,
        },
        `${where}/request/body`,
      );
    }
  }
  const status = interaction.response?.status ?? 200;
  const documentedError = op.errorStatuses.includes(String(status));
  // An interaction expecting a documented 400/404 sends a request the gateway must refuse: its violations are its point.
  if (!documentedError) {
    const violations = spec
      .validate(op.requestSchemaId, body)
      .filter((v) => !['allOf', 'oneOf', 'anyOf', 'if'].includes(v.keyword));
    for (const v of violations) {
      const limit = v.keyword === 'maxItems' || BATCH_LIMIT.test(v.requirementId ?? '');
      finding(
        limit ? 'pactRequestWithinLimits' : 'pactRequestFollowsSpec',
        limit ? 'LIMIT_EXCEEDED' : 'REQUEST_SCHEMA',
        v.requirementId ? [v.requirementId] : [],
        {
          expected: `${v.instancePath || '/'} to satisfy the interface (${v.message})`,
          received: `${JSON.stringify(pick(body, v.instancePath))?.slice(0, 120)}`,
        },
        `${where}/request/body${v.instancePath}`,
      );
    }
  }
  // Status.
  if (status !== 200 && !documentedError) {
    const listed = op.errorStatuses.length ? `200 or ${op.errorStatuses.join(', ')}` : '200';
    finding(
      'pactStatusShown',
      'STATUS_NOT_SHOWN',
      status >= 200 && status < 300 ? ['PAGI-GEN-007'] : ['PAGI-ERR-007'],
      { expected: `${listed} (what the document lists for ${op.key})`, received: `an expectation of HTTP ${status}` },
      `${where}/response/status`,
      status >= 200 && status < 300 ? 'must' : 'must',
    );
  }
  if (status !== 200) return key;
  const response = interaction.response;
  const resContentType = headerValue(response.headers as Record<string, unknown>, 'content-type');
  const resBody = normaliseBody(response.body, resContentType);
  const format = op.responseMedia.some((m) => m.type.includes('xml'))
    ? 'xml'
    : op.responseMedia.some((m) => m.type === 'text/html')
      ? 'html'
      : 'json';
  const formatRequirement = format === 'xml' ? 'PAGI-MED-006' : format === 'html' ? 'PAGI-MED-007' : 'PAGI-MED-008';
  if (resContentType) {
    const base = resContentType.split(';')[0]!.trim().toLowerCase();
    const allowed =
      format === 'xml' ? ['application/xml', 'text/xml'] : format === 'html' ? ['text/html'] : ['application/json'];
    const hasRule = Object.keys((response.matchingRules as any)?.header ?? {}).some(
      (name) => name.toLowerCase() === 'content-type',
    );
    if (!allowed.includes(base))
      finding(
        'pactMediaTypesShown',
        'RESPONSE_MEDIA',
        [formatRequirement],
        { expected: `a ${format.toUpperCase()} content type (${allowed.join(', ')})`, received: `${resContentType}` },
        `${where}/response/headers`,
      );
    else if (!hasRule && format === 'xml')
      finding(
        'pactMediaTypesShown',
        'RESPONSE_MEDIA',
        ['PAGI-MED-009'],
        {
          expected: `a matcher accepting application/xml and text/xml (both conventional)`,
          received: `exactly ${resContentType}`,
        },
        `${where}/response/headers`,
      );
  }
  const content = bodyText(resBody);
  if (content === undefined) return key;
  const table = ruleTable((response.matchingRules as any)?.body);
  const bodyBase = `${where}/response/body`;
  const ctx: Context = {
    spec,
    op,
    interaction,
    index,
    request: body,
    add: (check, code, ids, sides, pointer, severity) => finding(check, code, ids, sides, pointer, severity),
  };
  const flat = flatten(spec, op.responseSchemaId);
  if (format === 'html') {
    if (!/<form\b/i.test(content)) {
      finding(
        'pactResponseGuaranteed',
        'BODY_FORM',
        ['PAGI-CHK-002'],
        { expected: 'an HTML page holding the checkout form', received: 'a body with no <form>' },
        bodyBase,
      );
      return key;
    }
    const model = readCheckoutForm(content);
    for (const v of spec
      .validate(op.responseSchemaId, model)
      .filter((x) => x.keyword !== 'required' && !['allOf', 'oneOf', 'anyOf', 'if'].includes(x.keyword))) {
      finding(
        'pactResponseGuaranteed',
        'RESPONSE_SCHEMA',
        v.requirementId ? [v.requirementId] : [],
        {
          expected: `${v.instancePath || '/'} to satisfy the interface (${v.message}) of the page's form`,
          received: null,
        },
        `${bodyBase}${v.instancePath}`,
      );
    }
    if (!table.some((r) => r.tokens.length === 0)) {
      finding(
        'pactResponseGuaranteed',
        'VALUE_NOT_SHOWN',
        [NOT_SHOWN_REQUIREMENT],
        {
          expected: 'matchers on the page (the document fixes the form and its inputs, not the markup)',
          received: 'an expectation of the exact page',
        },
        bodyBase,
      );
    }
    return key;
  }
  let expected: unknown;
  if (format === 'xml') {
    const xml = readXml(content, 'respon');
    if (!xml.ok) {
      finding(
        'pactResponseGuaranteed',
        'BODY_FORM',
        ['PAGI-MED-006'],
        { expected: `an XML document with root element respon`, received: `${xml.problem.detail}` },
        bodyBase,
      );
      return key;
    }
    expected = normaliseArrays(xml.value, ['risk_reasons']);
    // XML rules address elements under the root (`$.respon.x['#text']`): read them as JSON paths below the root.
    for (const r of table) {
      if (r.tokens[0] === 'respon') r.tokens.shift();
      if (r.tokens[r.tokens.length - 1] === '#text') r.tokens.pop();
    }
  } else {
    try {
      expected = typeof resBody!.content === 'string' ? JSON.parse(resBody!.content as string) : resBody!.content;
    } catch {
      finding(
        'pactResponseGuaranteed',
        'BODY_FORM',
        [formatRequirement],
        { expected: 'a JSON body', received: 'text that does not parse as JSON' },
        bodyBase,
      );
      return key;
    }
  }
  for (const v of spec
    .validate(op.responseSchemaId, expected)
    .filter((x) => x.keyword !== 'required' && !['allOf', 'oneOf', 'anyOf', 'if'].includes(x.keyword))) {
    finding(
      'pactResponseGuaranteed',
      'RESPONSE_SCHEMA',
      v.requirementId ? [v.requirementId] : [],
      {
        expected: `${v.instancePath || '/'} to satisfy the interface (${v.message})`,
        received: `${JSON.stringify(pick(expected, v.instancePath))?.slice(0, 120)}`,
      },
      `${bodyBase}${v.instancePath}`,
    );
  }
  walkExpected(ctx, table, flat, expected, [], bodyBase);
  return key;
}

function pick(value: unknown, pointer: string): unknown {
  let v = value;
  for (const part of pointer.split('/').slice(1))
    v =
      v && typeof v === 'object'
        ? (v as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
        : undefined;
  return v;
}

/** Options of a pact check. */
export interface CheckOptions {
  profile?: string;
  failOn?: FailOn;
  file?: string;
  commandLine?: string[];
  spec?: SpecModel;
}

/** Check every interaction of a pact; the results in the shape of a run's. */
export function checkPact(pact: PactFile, options: CheckOptions = {}): RunResult {
  const started = new Date();
  const spec = options.spec ?? kitSpec();
  const loaded = loadProfile(options.profile ?? 'reference');
  const byKey = new Map<string, CheckResult>();
  const warnings: string[] = [];
  const ensure = (operation: OperationKey, checkId: CheckId): CheckResult => {
    const key = `${operation}/${checkId}`;
    let result = byKey.get(key);
    if (!result) {
      result = {
        checkId,
        operation,
        family: CHECKS[checkId].family,
        requirementIds: [],
        severity: 'info',
        status: 'passed',
        findings: [],
        durationMs: 0,
      };
      byKey.set(key, result);
    }
    return result;
  };
  // A merchant's pact may hold card data: findings quote its values, so they are masked before they leave.
  const card = loaded.profile.fields.card;
  const rules = {
    fields: [card.number, card.securityCode],
    cards: [...loaded.profile.payments.testCards.approve, ...loaded.profile.payments.testCards.decline],
  };
  pact.interactions.forEach((interaction, index) => {
    const key = checkInteraction(spec, loaded.profile, interaction, index, (operation, checkId, finding) => {
      if (!operation) {
        warnings.push(maskText(`${interaction.description}: ${finding.title}: ${finding.message}`, rules));
        return;
      }
      const result = ensure(operation, checkId);
      // The whole finding: its message, its expected and received values, its location.
      result.findings.push(
        maskValue(
          { checkId, ...finding, location: { ...finding.location, exchangeId: finding.location.exchangeId ?? '' } },
          rules,
        ),
      );
    });
    if (key) for (const id of Object.keys(CHECKS) as CheckId[]) ensure(key, id);
  });
  // Interactions on paths the interface does not have belong to no operation: they are warnings and fail the check.
  const unknown = warnings.length;
  for (const result of byKey.values()) {
    const ids = new Set([
      ...coveredRequirements(spec.operations.get(result.operation as OperationKey)!, result.checkId as CheckId),
      ...result.findings.flatMap((f) => f.requirementIds),
    ]);
    result.requirementIds = [...ids].sort();
    if (result.findings.length) {
      result.status = 'failed';
      result.severity = SEVERITY_ORDER.find((s) => result.findings.some((f) => f.severity === s)) ?? 'must';
    } else {
      result.severity = 'must';
    }
  }
  const results = [...byKey.values()];
  const plan: PlannedTest[] = results.map((r) => ({
    key: `${r.operation}/${r.checkId}`,
    checkId: r.checkId,
    family: r.family,
    operation: r.operation as OperationKey,
    probe: 'pact',
    requirementIds: r.requirementIds,
    severity: r.severity,
    title: r.checkId,
    selected: true,
  }));
  const ended = new Date();
  const result = buildRunResult(spec, plan, results, {
    metadata: {
      kitVersion: KIT_VERSION,
      nodeVersion: process.version,
      commandLine: options.commandLine ?? ['pact check'],
      spec: { root: spec.root, digest: spec.digest },
      profile: { name: loaded.profile.name, version: loaded.profile.version, file: loaded.file, digest: loaded.digest },
      // The check's settings: the pact checked, the profile and the failing level.
      configDigest: createHash('sha256')
        .update(
          JSON.stringify({
            pact: createHash('sha256').update(JSON.stringify(pact)).digest('hex'),
            profile: loaded.digest,
            failOn: options.failOn ?? 'must',
          }),
        )
        .digest('hex'),
      target: { baseUrl: options.file ? `pact:${path.basename(options.file)}` : 'pact', embedded: false },
      seed: 0,
      failOn: options.failOn ?? 'must',
      selection: { only: [], skip: [] },
      startedAt: started.toISOString(),
      endedAt: ended.toISOString(),
      durationMs: ended.getTime() - started.getTime(),
    },
    exchanges: 0,
    warnings,
    failOn: options.failOn ?? 'must',
  });
  if (unknown && result.exitCode === 0) {
    result.exitCode = 1;
    result.verdict = 'NOT CONFORMANT';
    result.verdictReasons.push(`${unknown} interaction(s) name a path the interface does not have.`);
    if (result.verdicts) {
      result.verdicts.document.verdict = 'NOT CONFORMANT';
      result.verdicts.document.reasons.push(result.verdictReasons.at(-1)!);
    }
  }
  return result;
}

/** Every finding of a check result list, flattened. */
export function findingsOf(result: RunResult): Finding[] {
  return result.checks.flatMap((c) => c.findings);
}

/** Write a pact check's results with `run`'s reporters (the caller creates them). */
export async function reportCheck(
  result: RunResult,
  options: { out: string; reporters: readonly KitReporter[] },
): Promise<string[]> {
  const { reporters } = options;
  const files: string[] = [];
  for (const reporter of reporters) {
    const written = await reporter.onRunEnd?.(result, { outDir: options.out, exchanges: [], files });
    if (Array.isArray(written)) files.push(...written);
  }
  return files;
}
