/**
 * The pact checks: ordinary checks (id, family, requirements, description, a pure `run` over an observation) whose
 * observation is one interaction of a merchant's pact (pact/observation.ts). Each judges one property of the
 * pact against the interface: its requests are requests of the interface, within its limits, in its media types;
 * the statuses and every response expectation are ones the interface guarantees. The table is validated like the
 * suites' (engine/registry.ts); `pagi-conform pact check` runs it through the engine's outcome and roll-up.
 */
import { readCheckoutForm } from '../core/codecs/html.js';
import { normaliseArrays, readXml } from '../core/codecs/xml.js';
import { registryProblems } from '../engine/registry.js';
import type { Check, CheckContext, Finding, Observation, Probe } from '../core/model.js';
import { kitSpec, type OperationModel, type SpecModel } from '../core/spec/load.js';
import { NOT_SHOWN_REQUIREMENT, ruleTable, walkExpected } from './expectations.js';
import { valueAt } from '../core/spec/pointer.js';
import { collector, normaliseBody, PACT_PROBE_ID, viewOf, type AddFinding, type PactView } from './observation.js';
import { bodyText, headerValue } from './pact-file.js';
import { flatten } from './schema.js';

/** Combinator keywords: their failures repeat those of the branches, which are reported instead. */
const COMBINATORS = ['allOf', 'oneOf', 'anyOf', 'if'];

/** What a pact check judges of one interaction on its operation. */
type Rule = (view: PactView, op: OperationModel, ctx: CheckContext, add: AddFinding) => void;

/** Whether an interaction expects a status the document lists as an error of the operation (400/404 of the APM payment). */
function documentedError(view: PactView, op: OperationModel): boolean {
  return op.errorStatuses.includes(String(view.interaction.response?.status ?? 200));
}

/** The request's schema violations; an interaction expecting a documented 400/404 sends one on purpose: none. */
function requestViolations(view: PactView, op: OperationModel, spec: SpecModel) {
  if (documentedError(view, op)) return [];
  return spec.validate(op.requestSchemaId, view.body).filter((v) => !COMBINATORS.includes(v.keyword));
}

/** Whether a schema violation is one of a limit (number of orders). */
function isLimit(v: { keyword: string; requirementId?: string }): boolean {
  return v.keyword === 'maxItems' || /^PAGI-LIM-/.test(v.requirementId ?? '');
}

/** The operation's response format, and the requirement that states it. */
function responseFormat(op: OperationModel): { format: 'xml' | 'html' | 'json'; requirement: string } {
  if (op.responseMedia.some((m) => m.type.includes('xml'))) return { format: 'xml', requirement: 'PAGI-MED-006' };
  if (op.responseMedia.some((m) => m.type === 'text/html')) return { format: 'html', requirement: 'PAGI-MED-007' };
  return { format: 'json', requirement: 'PAGI-MED-008' };
}

/** The request is one of the interface: POST, and a body its schema accepts (limits apart). */
const requestFollowsSpec: Rule = (view, op, ctx, add) => {
  const request = view.interaction.request ?? {};
  if ((request.method ?? '').toUpperCase() !== 'POST')
    add(
      'METHOD_NOT_POST',
      ['PAGI-GEN-001'],
      { expected: `POST`, received: `${JSON.stringify(request.method)}` },
      `${view.where}/request/method`,
    );
  for (const v of requestViolations(view, op, ctx.spec).filter((x) => !isLimit(x)))
    add(
      'REQUEST_SCHEMA',
      v.requirementId ? [v.requirementId] : [],
      {
        expected: `${v.instancePath || '/'} to satisfy the interface (${v.message})`,
        received: `${JSON.stringify(valueAt(view.body, v.instancePath))?.slice(0, 120)}`,
      },
      `${view.where}/request/body${v.instancePath}`,
    );
};

/** The request's orders, and the orders a query or refund search selects (the profile's selection fields), stay within the limit. */
const requestWithinLimits: Rule = (view, op, ctx, add) => {
  const selection = (
    ctx.profile.selection as Record<string, { fields: string[]; listSeparator: string; combine: string } | undefined>
  )[op.key];
  if (op.selectionLimit && selection) {
    const counts = selection.fields.map((f) =>
      typeof view.body[f] === 'string' && view.body[f] !== ''
        ? String(view.body[f]).split(selection.listSeparator).length
        : 0,
    );
    const selected = selection.combine === 'union' ? counts.reduce((a, b) => a + b, 0) : Math.max(0, ...counts);
    if (selected > op.selectionLimit.maxOrders)
      add(
        'REQUEST_OVER_LIMIT',
        [op.selectionLimit.requirement],
        {
          expected: `at most ${op.selectionLimit.maxOrders} orders per request`,
          received: `a selection of ${selected} (${selection.fields.join(', ')})`,
        },
        `${view.where}/request/body`,
      );
  }
  for (const v of requestViolations(view, op, ctx.spec).filter(isLimit))
    add(
      'REQUEST_OVER_LIMIT',
      v.requirementId ? [v.requirementId] : [],
      {
        expected: `${v.instancePath || '/'} to satisfy the interface (${v.message})`,
        received: `${JSON.stringify(valueAt(view.body, v.instancePath))?.slice(0, 120)}`,
      },
      `${view.where}/request/body${v.instancePath}`,
    );
};

/** The request's media type is one the spec lists (and the profile takes); the expected response's is the operation's format. */
const mediaTypesShown: Rule = (view, op, ctx, add) => {
  const { profile } = ctx;
  const declared = view.contentType;
  const mediaRequirement =
    op.requirements.find((r) => ['PAGI-MED-001', 'PAGI-MED-002', 'PAGI-MED-003'].includes(r)) ?? 'PAGI-MED-001';
  const reqBase = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  if (reqBase && !op.requestMedia.some((m) => m.type === reqBase)) {
    add(
      'REQUEST_MEDIA',
      [mediaRequirement],
      { expected: `one of ${op.requestMedia.map((m) => m.type).join(', ')}`, received: `${declared}` },
      `${view.where}/request/headers`,
    );
  } else if (reqBase && !profile.requestMedia.acceptOther) {
    // Which declared type a gateway enforces is not shown (rule 6): the profile says, and this one takes only its own.
    const wanted =
      profile.requestMedia.types[op.key] === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
    if (reqBase !== wanted)
      add(
        'REQUEST_MEDIA',
        ['PAGI-MED-005'],
        {
          expected: `${wanted} (the profile ${profile.name} accepts no other type for ${op.key})`,
          received: `${declared}`,
        },
        `${view.where}/request/headers`,
      );
  }
  const response = view.interaction.response;
  // A request judged alone (pagi-conform proxy) has no expected response.
  if (!response || (response.status ?? 200) !== 200) return;
  const resContentType = headerValue(response.headers as Record<string, unknown>, 'content-type');
  if (!resContentType) return;
  const { format, requirement } = responseFormat(op);
  const base = resContentType.split(';')[0]!.trim().toLowerCase();
  const allowed =
    format === 'xml' ? ['application/xml', 'text/xml'] : format === 'html' ? ['text/html'] : ['application/json'];
  const hasRule = Object.keys((response.matchingRules as any)?.header ?? {}).some(
    (name) => name.toLowerCase() === 'content-type',
  );
  if (!allowed.includes(base))
    add(
      'RESPONSE_MEDIA',
      [requirement],
      { expected: `a ${format.toUpperCase()} content type (${allowed.join(', ')})`, received: `${resContentType}` },
      `${view.where}/response/headers`,
    );
  else if (!hasRule && format === 'xml')
    add(
      'RESPONSE_MEDIA',
      ['PAGI-MED-009'],
      {
        expected: `a matcher accepting application/xml and text/xml (both conventional)`,
        received: `exactly ${resContentType}`,
      },
      `${view.where}/response/headers`,
    );
};

/** The expected status is 200 or one the document lists for the operation. */
const statusShown: Rule = (view, op, _ctx, add) => {
  const status = view.interaction.response?.status ?? 200;
  if (status === 200 || documentedError(view, op)) return;
  const listed = op.errorStatuses.length ? `200 or ${op.errorStatuses.join(', ')}` : '200';
  // A status the document does not list contradicts "HTTP 200 on success" whatever the catalogue says of errors.
  add(
    'STATUS_NOT_SHOWN',
    status >= 200 && status < 300 ? ['PAGI-GEN-007'] : ['PAGI-ERR-007'],
    { expected: `${listed} (what the document lists for ${op.key})`, received: `an expectation of HTTP ${status}` },
    `${view.where}/response/status`,
    'must',
  );
};

/** Every expectation of a successful response is guaranteed by the interface: its form, fields, values, sizes. */
const responseGuaranteed: Rule = (view, op, ctx, add) => {
  const { spec } = ctx;
  const response = view.interaction.response;
  if ((response?.status ?? 200) !== 200) return;
  const resBody = normaliseBody(
    response.body,
    headerValue(response.headers as Record<string, unknown>, 'content-type'),
  );
  const content = bodyText(resBody);
  if (content === undefined) return;
  const { format, requirement } = responseFormat(op);
  const table = ruleTable((response.matchingRules as any)?.body);
  const bodyBase = `${view.where}/response/body`;
  const schemaFindings = (value: unknown, ofForm: boolean) => {
    for (const v of spec
      .validate(op.responseSchemaId, value)
      .filter((x) => x.keyword !== 'required' && !COMBINATORS.includes(x.keyword)))
      add(
        'RESPONSE_SCHEMA',
        v.requirementId ? [v.requirementId] : [],
        ofForm
          ? {
              expected: `${v.instancePath || '/'} to satisfy the interface (${v.message}) of the page's form`,
              received: null,
            }
          : {
              expected: `${v.instancePath || '/'} to satisfy the interface (${v.message})`,
              received: `${JSON.stringify(valueAt(value, v.instancePath))?.slice(0, 120)}`,
            },
        `${bodyBase}${v.instancePath}`,
      );
  };
  if (format === 'html') {
    if (!/<form\b/i.test(content)) {
      add(
        'BODY_FORM',
        ['PAGI-CHK-002'],
        { expected: 'an HTML page holding the checkout form', received: 'a body with no <form>' },
        bodyBase,
      );
      return;
    }
    schemaFindings(readCheckoutForm(content), true);
    if (!table.some((r) => r.tokens.length === 0))
      add(
        'VALUE_NOT_SHOWN',
        [NOT_SHOWN_REQUIREMENT],
        {
          expected: 'matchers on the page (the document fixes the form and its inputs, not the markup)',
          received: 'an expectation of the exact page',
        },
        bodyBase,
      );
    return;
  }
  let expected: unknown;
  if (format === 'xml') {
    const xml = readXml(content, 'respon');
    if (!xml.ok) {
      add(
        'BODY_FORM',
        ['PAGI-MED-006'],
        { expected: `an XML document with root element respon`, received: `${xml.problem.detail}` },
        bodyBase,
      );
      return;
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
      add(
        'BODY_FORM',
        [requirement],
        { expected: 'a JSON body', received: 'text that does not parse as JSON' },
        bodyBase,
      );
      return;
    }
  }
  schemaFindings(expected, false);
  walkExpected(
    { spec, op, interaction: view.interaction, request: view.body, add },
    table,
    flatten(spec, op.responseSchemaId),
    expected,
    [],
    bodyBase,
  );
};

/** The testable requirements of the catalogue whose id matches. */
function catalogue(spec: SpecModel, match: RegExp): string[] {
  return [...spec.requirements.values()].filter((r) => r.level !== 'unspecified' && match.test(r.id)).map((r) => r.id);
}

/** A pact check from its rule: `run` reads the interaction of the observation and reports what the rule finds. */
function pactCheck(def: Omit<Check, 'run' | 'probe'> & { rule: Rule }): Check {
  const { rule, ...meta } = def;
  return {
    ...meta,
    probe: PACT_PROBE_ID,
    run(observation: Observation, ctx: CheckContext): Finding[] {
      const view = viewOf(observation);
      const findings: Finding[] = [];
      rule(view, ctx.spec.operations.get(view.operation)!, ctx, collector(ctx.spec, meta.id, view, findings));
      return findings;
    },
  };
}

/**
 * The pact checks of a spec. Requirements: what each check judges whatever the pact holds (an operation's result
 * traces to those the operation concerns). A finding may also name a requirement a schema constraint carries, or
 * `PAGI-GEN-008` (presence and allowed values are not shown) or nothing for an expectation the document does not back.
 */
export function pactChecks(spec: SpecModel): Check[] {
  const all = [...spec.operations.keys()];
  const ops = [...spec.operations.values()];
  const limited = ops.filter((op) => op.batch || op.selectionLimit);
  return [
    pactCheck({
      id: 'pactRequestFollowsSpec',
      family: 'shape',
      operations: all,
      requirements: ['PAGI-GEN-001', 'PAGI-GEN-002', 'PAGI-GEN-003', 'PAGI-AUTH-001'],
      description: 'The pact request is a request of the interface: path, method and body as the spec describes them.',
      rule: requestFollowsSpec,
    }),
    pactCheck({
      id: 'pactRequestWithinLimits',
      family: 'limits',
      operations: limited.map((op) => op.key),
      requirements: [
        ...new Set(
          limited.map((op) => (op.batch?.limitRequirement ?? op.selectionLimit?.requirement)!).filter(Boolean),
        ),
      ],
      description: 'The pact request stays within the order limits of the interface.',
      rule: requestWithinLimits,
    }),
    pactCheck({
      id: 'pactMediaTypesShown',
      family: 'media',
      operations: all,
      requirements: catalogue(spec, /^PAGI-MED-/),
      description: 'The request and response media types the pact names are those of the interface.',
      rule: mediaTypesShown,
    }),
    pactCheck({
      id: 'pactStatusShown',
      family: 'status',
      operations: all,
      requirements: catalogue(spec, /^PAGI-(GEN-007|APM-004|APM-005)$/),
      description: 'The response status the pact expects is one the interface lists for the operation.',
      rule: statusShown,
    }),
    pactCheck({
      id: 'pactResponseGuaranteed',
      family: 'shape',
      operations: all,
      requirements: ['PAGI-GEN-004'],
      description:
        'Every response expectation of the pact is guaranteed by the interface: fields, forms, values, sizes.',
      rule: responseGuaranteed,
    }),
  ];
}

/**
 * The observation source of the pact checks, so they are validated like the suites' table: it stands for a pact file
 * read by `pagi-conform pact check`, and sends nothing (a run never plans the pact checks).
 */
export function pactProbe(spec: SpecModel): Probe {
  return {
    id: PACT_PROBE_ID,
    operations: [...spec.operations.keys()],
    run: async () => {
      throw new Error('the pact checks read a merchant pact (pagi-conform pact check): they have no probe to run');
    },
  };
}

/** Throw with every problem of the pact check table (a broken kit, not a merchant's mistake). */
export function validatePactChecks(checks: readonly Check[], spec: SpecModel): void {
  const problems = registryProblems({ CHECKS: checks, PROBES: [pactProbe(spec)] }, spec);
  if (problems.length) throw new Error(`pact check table is not valid:\n- ${problems.join('\n- ')}`);
}

/** The pact checks of the kit's spec, validated. */
export const PACT_CHECKS: readonly Check[] = pactChecks(kitSpec());
validatePactChecks(PACT_CHECKS, kitSpec());
