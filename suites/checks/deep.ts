/**
 * deep: properties every generated exchange of the `deep` probe must have — no server error; an accepted valid
 * request answered in its documented shape, formats and echoes; a valid request never refused as invalid input (a
 * decline or a per-item failure the profile declares is fine); an invalid one refused in the profile's form and
 * changing nothing; refunds never above the capture, no capture after a cancel. Each property is a pure function of
 * one exchange and its generated case (`deepVerdict`): the probe uses it to find and shrink failures, the checks to
 * report the shrunk ones the probe kept.
 */
import type { Check, CheckContext, Exchange, Finding, Level, Observation, OperationKey } from '../../core/model.js';
import { severityOfLevel, severityRank } from '../../core/run-result.js';
import { type FindingInput, defineCheck, makeFinding, outcomeOf, quote } from '../findings.js';
import { batchResults, codeMessage, itemSucceeded, operationOf, responseObject, statusOf } from '../observe.js';
import { covers } from '../../core/spec/operations.js';
import { checkFollowUp, errorKindOf, refusalInBody } from './common.js';
import {
  fieldFormatsFollowConventions,
  payoutEchoesRequest,
  batchResultsEchoRequestIds,
  responseEchoesRequestFields,
} from './conventions.js';
import { noFullCardNumberInResponse } from './conventions-cards.js';
import { documentedRequestAccepted, responseMatchesSchema } from './shape.js';
import { kitSpec } from '../../core/spec/load.js';
import type { DeepCase, DeepFailure } from '../facts.js';
import { MONEY_BREACH_REQUIREMENT, inUnits } from '../money.js';

/** The checks whose findings the deep family repeats on each accepted valid exchange (they read only the main exchange). */
const ANSWER_CHECKS: readonly Check[] = [
  responseMatchesSchema,
  fieldFormatsFollowConventions,
  responseEchoesRequestFields,
  payoutEchoesRequest,
  batchResultsEchoRequestIds,
  noFullCardNumberInResponse,
];

const ERR_REFUSED = 'PAGI-ERR-002';
/** The availability invariant a server error breaks, whatever the request. */
const AVAILABILITY = 'PAGI-INV-008';

function finding(ctx: CheckContext, checkId: string, operation: OperationKey, input: FindingInput): Finding {
  return makeFinding(ctx, checkId, operation, input);
}

/** Of two requirements, the one of the weaker level (a rule the profile decides is never reported above `profile`). */
function weaker(ctx: CheckContext, a: string, b: string): string {
  const rank = (id: string) => severityRank(severityOfLevel(ctx.requirement(id).level));
  return rank(a) >= rank(b) ? a : b;
}

function describeCase(ctx: CheckContext, c: DeepCase): string {
  if (c.kind === 'valid')
    return `valid request with ${quote(ctx, c.fields)}${c.items ? ` and items ${quote(ctx, c.items)}` : ''}`;
  return c.kind === 'missing'
    ? `${c.pointer} left out (${c.rule})`
    : `${c.kind} rule ${c.rule} broken at ${c.pointer} = ${quote(ctx, c.value)}`;
}

/** Whether a batch answer failed every item with one of the profile's per-item failures (`invalid`: invalidItem only). */
function itemsRefused(ctx: CheckContext, operation: OperationKey, exchange: Exchange, invalidOnly: boolean): boolean {
  const batch = operationOf(ctx.spec, operation).batch;
  const results = batchResults(ctx.spec, operation, responseObject(exchange, ctx.spec));
  if (!batch || !results?.length) return false;
  const invalid = codeMessage(ctx.profile.batch.itemFailures.invalidItem);
  return results.every((r) => !itemSucceeded(ctx, operation, r) && (!invalidOnly || r[batch.message] === invalid));
}

/** One verdict in the making: the check, the exchange and its case, the findings so far. */
interface Verdict {
  checkId: string;
  ctx: CheckContext;
  operation: OperationKey;
  c: DeepCase;
  x: Exchange;
  status: number | undefined;
  /** The case described, made only for a finding: most generated exchanges hold every property. */
  described: string | undefined;
  out: Finding[];
}

/** The verdict's case in words (described once). */
function what(v: Verdict): string {
  v.described ??= describeCase(v.ctx, v.c);
  return v.described;
}

/** Add a finding of the verdict's check on its exchange. */
function report(v: Verdict, input: FindingInput): void {
  v.out.push(finding(v.ctx, v.checkId, v.operation, { exchange: v.x, ...input }));
}

/** deepNeverServerError: an answer below 500 to any generated request. */
function neverServerError(v: Verdict): void {
  const { status } = v;
  if (status === undefined || status >= 500)
    report(v, {
      code: status === undefined ? 'NO_RESPONSE' : 'SERVER_ERROR',
      requirement: status === undefined ? ERR_REFUSED : [ERR_REFUSED, AVAILABILITY],
      expected: `an answer below 500 to the ${what(v)}`,
      received: outcomeOf(v.x),
    });
}

/** deepAnswersConform: an accepted valid request's answer passes the answer checks covering the operation. */
function answersConform(v: Verdict): void {
  const { ctx, operation, c, x, checkId } = v;
  if (c.kind !== 'valid' || v.status !== 200) return;
  const o: Observation = { probeId: 'deep', operation, main: x, steps: {}, facts: {} };
  for (const check of ANSWER_CHECKS) {
    if (!covers(ctx.spec, check.operations, operation)) continue;
    const found = check.run(o, ctx);
    if (Array.isArray(found))
      for (const f of found)
        if (f.severity !== 'info') v.out.push({ ...f, checkId, message: `${f.message} (${check.id}, ${what(v)})` });
  }
}

/** deepValidRequestAccepted: a valid request is not refused, nor every item of it refused as invalid. */
function validRequestAccepted(v: Verdict): void {
  const { ctx, operation, x, status } = v;
  if (v.c.kind !== 'valid' || status === undefined || status >= 500) return;
  if (status >= 400) {
    report(v, {
      code: 'REQUEST_REFUSED',
      requirement: 'PAGI-ERR-004',
      expected: `the ${what(v)} accepted (or declined as the profile says)`,
      received: `${outcomeOf(x)}${errorKindOf(ctx, x, operation) ? ` (the profile's ${errorKindOf(ctx, x, operation)})` : ''}`,
    });
  } else if (itemsRefused(ctx, operation, x, true)) {
    report(v, {
      code: 'REQUEST_REFUSED',
      requirement: 'PAGI-ERR-004',
      expected: `the items of the ${what(v)} accepted or failed for their state or amount`,
      received: `every item refused as the profile's invalidItem`,
    });
  }
}

/** deepInvalidRequestRefused: a request breaking one rule is refused, with one of the profile's error answers. */
function invalidRequestRefused(v: Verdict): void {
  const { ctx, operation, c, x, status } = v;
  if (c.kind === 'valid' || status === undefined || status >= 500) return;
  const batch = operationOf(ctx.spec, operation).batch;
  if (status < 400) {
    // A refusal the profile carries in an HTTP 200 body (errors.refusalForms statusInBody, failureType).
    if (refusalInBody(ctx, x, operation)) return;
    if (batch && c.pointer.startsWith(`/${batch.orders}/`) && itemsRefused(ctx, operation, x, false)) return;
    report(v, {
      code: 'NOT_REFUSED',
      requirement: weaker(ctx, c.rule, ERR_REFUSED),
      pointer: c.pointer,
      expected: `a refusal of the ${what(v)}`,
      received: outcomeOf(x),
    });
    return;
  }
  // Which refusal a request breaking one rule gets is the profile's precedence (an unknown merchant is a bad signature).
  if (errorKindOf(ctx, x, operation)) return;
  if (
    (c.kind === 'format' || c.kind === 'type') &&
    operationOf(ctx.spec, operation).errorStatuses.includes('400') &&
    status !== 400
  ) {
    report(v, {
      code: 'HTTP_STATUS',
      requirement: 'PAGI-APM-004',
      pointer: c.pointer,
      expected: `HTTP 400 for the ${what(v)}`,
      received: outcomeOf(x),
    });
  } else
    report(v, {
      code: 'ERROR_ANSWER',
      requirement: 'PAGI-ERR-004',
      pointer: c.pointer,
      expected: `one of the profile's error answers to the ${what(v)}`,
      received: outcomeOf(x),
    });
}

/**
 * deepLifecycleInvariants: after an accepted valid request the book (suites/money.ts) captures no more than authorised,
 * refunds no more than captured, captures nothing cancelled.
 */
function lifecycleInvariants(v: Verdict, l: DeepFailure['ledger']): void {
  if (v.c.kind !== 'valid' || !l || v.status !== 200) return;
  const requirement = MONEY_BREACH_REQUIREMENT[l.breach];
  if (l.breach === 'overRefund')
    report(v, {
      code: 'TRANSITION_ALLOWED',
      requirement,
      expected: `refunds of ${l.transactionId} adding up to at most the captured ${inUnits(l.capturedCents)}`,
      received: `${inUnits(l.refundedCents)} refunded`,
    });
  else if (l.breach === 'overCapture')
    report(v, {
      code: 'TRANSITION_ALLOWED',
      requirement,
      expected: `captures of ${l.transactionId} adding up to at most the authorised ${inUnits(l.authorisedCents ?? 0)}`,
      received: `${inUnits(l.capturedCents)} captured`,
    });
  else if (v.operation === 'capture')
    report(v, {
      code: 'TRANSITION_ALLOWED',
      requirement,
      expected: `no capture of the cancelled ${l.transactionId}`,
      received: 'a successful capture',
    });
}

/**
 * Findings of one check on one generated exchange (empty: the property holds). `deepInvalidChangesNothing` and
 * `deepLifecycleInvariants` read the follow-up and ledger the probe recorded beside the exchange.
 */
export function deepVerdict(
  checkId: string,
  ctx: CheckContext,
  operation: OperationKey,
  c: DeepCase,
  x: Exchange,
  extra: { followUp?: Observation; ledger?: DeepFailure['ledger'] } = {},
): Finding[] {
  const v: Verdict = { checkId, ctx, operation, c, x, status: statusOf(x), described: undefined, out: [] };
  switch (checkId) {
    case 'deepNeverServerError':
      neverServerError(v);
      break;
    case 'deepAnswersConform':
      answersConform(v);
      break;
    case 'deepValidRequestAccepted':
      validRequestAccepted(v);
      break;
    case 'deepInvalidRequestRefused':
      invalidRequestRefused(v);
      break;
    case 'deepInvalidChangesNothing':
      if (c.kind !== 'valid' && extra.followUp) {
        const requirement = c.kind === 'signature' ? 'PAGI-AUTH-006' : 'PAGI-ERR-003';
        checkFollowUp(ctx, (input) => report(v, input), extra.followUp, requirement);
      }
      break;
    case 'deepLifecycleInvariants':
      lifecycleInvariants(v, extra.ledger);
      break;
    default:
      throw new Error(`no deep property ${checkId}`);
  }
  return v.out;
}

/** Checks evaluated on every generated exchange as it is answered (shrinkable: they read one exchange). */
export const STATELESS_DEEP_CHECKS = [
  'deepNeverServerError',
  'deepAnswersConform',
  'deepValidRequestAccepted',
  'deepInvalidRequestRefused',
] as const;

function deepCheck(id: string, requirements: readonly string[], description: string): Check {
  return {
    id,
    family: 'deep',
    probe: 'deep',
    operations: 'all',
    requirements,
    description,
    run(o, ctx) {
      if (!o.facts.counts) return { notApplicable: 'the deep probe generated no case' };
      const out: Finding[] = [];
      for (const f of (o.facts.failures ?? []).filter((x) => x.checkId === id)) {
        const x = o.steps[f.step];
        if (!x) continue;
        const followUpX = o.steps[`${f.step}:followUp`];
        const followUp = followUpX
          ? { ...o, main: x, steps: { followUp: followUpX }, facts: { followUp: o.facts[`${f.step}:followUp`] } }
          : undefined;
        for (const found of deepVerdict(id, ctx, o.operation, f.case, x, { followUp, ledger: f.ledger })) {
          out.push({
            ...found,
            message: `${found.message}; the smallest of ${f.failing} failing generated case(s): seed ${f.seed}, path ${f.path}`,
          });
        }
      }
      return out;
    },
  };
}

export const deepNeverServerError = deepCheck(
  'deepNeverServerError',
  [ERR_REFUSED, AVAILABILITY],
  'No generated request, valid or invalid, gets a server error or no answer.',
);
export const deepAnswersConform = deepCheck(
  'deepAnswersConform',
  [...new Set(ANSWER_CHECKS.flatMap((c) => c.requirements))].sort(),
  'Every accepted generated valid request is answered in its documented shape and formats, echoing the request.',
);
export const deepValidRequestAccepted = deepCheck(
  'deepValidRequestAccepted',
  ['PAGI-ERR-004'],
  'A generated valid request is accepted, or declined or failed per item only in a form the profile declares, never refused as invalid input.',
);
/**
 * The rules a generated invalid request can break that a missing refusal is judged at (`weaker`): those no stronger
 * than ERR_REFUSED, so the check's severity stays ERR_REFUSED's.
 */
const REFUSAL_RULES = ['PAGI-AUTH-001', ...documentedRequestAccepted.requirements].filter((id) => {
  const rank = (level: Level) => severityRank(severityOfLevel(level));
  const level = kitSpec().requirements.get(id)?.level;
  return level !== undefined && rank(level) >= rank(kitSpec().requirements.get(ERR_REFUSED)!.level);
});

export const deepInvalidRequestRefused = deepCheck(
  'deepInvalidRequestRefused',
  [...new Set([ERR_REFUSED, 'PAGI-ERR-004', 'PAGI-APM-004', 'PAGI-AUTH-006', ...REFUSAL_RULES])],
  "A generated request breaking one rule (format, type, a listed field left out, the signature) is refused in the profile's form.",
);
export const deepInvalidChangesNothing = deepCheck(
  'deepInvalidChangesNothing',
  ['PAGI-ERR-003', 'PAGI-AUTH-006'],
  'A refused generated request changes nothing: the follow-up query shows no payment created and no state moved.',
);
export const deepLifecycleInvariants = deepCheck(
  'deepLifecycleInvariants',
  ['PAGI-INV-001', 'PAGI-INV-002', 'PAGI-CNL-002'],
  'Across the generated captures and refunds, no transaction is captured above its authorisation, refunded above its capture or captured after its cancel.',
);

/** How many cases the probe generated and how they were answered (information: never fails). */
export const deepCasesGenerated = defineCheck<string>({
  id: 'deepCasesGenerated',
  family: 'deep',
  probe: 'deep',
  operations: 'all',
  requirements: [ERR_REFUSED],
  severity: 'info',
  description: 'Counts of the generated valid and invalid requests of the operation and how they were answered.',
  verify(o, _ctx, report) {
    const n = o.facts.counts;
    if (!n) return { notApplicable: 'the deep probe generated no case' };
    report({
      code: 'DEEP_SUMMARY',
      requirement: ERR_REFUSED,
      severity: 'info',
      expected: `${String(o.facts.depth)} valid and ${String(o.facts.depth)} invalid generated requests (seed ${String(o.facts.seed)})`,
      received: `${n.valid} valid (${n.accepted} accepted, ${n.declined} declined or failed per item), ${n.invalid} invalid (${n.refused} refused), ${n.followUps} follow-up queries`,
    });
  },
});
