/**
 * The observation rules: what the engine judges on every observation any check reads, whatever the suite — a request
 * the target left unanswered, a server error, a URL off the target the kit would not follow. They are entries of the
 * one table (suites/registry.ts lists them beside its checks as `RULES`; a `--registry` module that exports none gets
 * these), each a pure function of the observation, with a stable id that names the property and the finding code it
 * reports. How the engine joins a rule's findings to the reading check's result is the rule's `effect`.
 */
import type { CheckContext, Exchange, Finding, Observation, ObservationRule } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import { ProfilePointNotStated } from '../core/types/errors.js';
import { findingTitle } from '../core/types/finding-codes.js';
import { answeredServerError } from './inconclusive.js';
import { findingProse, severityOf } from './outcome.js';

/** Transport errors that mean the target took the connection and did not answer on it (or closed it). */
const SILENT_TARGET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** Whether the target took the request and did not answer it (timed out, reset, refused, closed). */
export function targetSilent(x: Exchange): boolean {
  if (x.error?.kind === 'timeout') return true;
  return x.error?.kind === 'network' && SILENT_TARGET_CODES.has(x.error.message.split(':')[0]!.trim());
}

/** The exchanges of an observation the kit sent (not the notifications it received), in the order made. */
export function sentExchanges(observation: Observation): Exchange[] {
  return [observation.main, ...Object.values(observation.steps)].filter((x) => x && !x.incoming);
}

/**
 * The requirement a request left unanswered, or answered with a server error, breaks: the catalogue's availability
 * invariant (every listed answer of the interface is 200, 400 or 404); undefined for a catalogue without one.
 */
export function availabilityRequirement(spec: SpecModel): string | undefined {
  for (const r of spec.requirements.values()) if (r.level === 'invariant' && r.family === 'availability') return r.id;
  return undefined;
}

/** A finding's requirements and severity for the availability rule: the invariant, or `must` without a catalogue entry. */
export function availabilityNamed(spec: SpecModel): Pick<Finding, 'requirementIds' | 'severity'> {
  const id = availabilityRequirement(spec);
  return id ? { requirementIds: [id], severity: severityOf(spec, [id]) } : { requirementIds: [], severity: 'must' };
}

/**
 * The first request of an observation to an operation of the interface that got no answer (timed out, connection
 * reset or refused). Pages outside the operations (an issuer page) are left to the checks that read them.
 */
export function unansweredExchange(observation: Observation): Exchange | undefined {
  return sentExchanges(observation).find((x) => x.operation !== 'external' && !x.response && targetSilent(x));
}

/** A finding's expected and received (words) with the message derived from them. */
function sides(expected: string, received: string): Pick<Finding, 'expected' | 'received' | 'message'> {
  return { message: findingProse(expected, received), expected, received };
}

/** The NO_ANSWER finding of an unanswered request. */
export function noAnswerFinding(spec: SpecModel, x: Exchange): Finding {
  return {
    checkId: everyRequestAnswered.id,
    ...availabilityNamed(spec),
    code: 'NO_ANSWER',
    title: findingTitle('NO_ANSWER'),
    ...sides(
      `an HTTP response to ${x.request.method} ${new URL(x.request.url).pathname} (${x.operation})`,
      `none: ${x.error?.message ?? 'no response'}`,
    ),
    location: { operation: x.operation, pointer: '', exchangeId: x.id },
    evidence: x.evidence,
  };
}

/** The SERVER_ERROR finding of a request the target answered with a 5xx. */
export function serverErrorFinding(spec: SpecModel, x: Exchange): Finding {
  return {
    checkId: neverServerErrorAnswer.id,
    ...availabilityNamed(spec),
    code: 'SERVER_ERROR',
    title: findingTitle('SERVER_ERROR'),
    ...sides(
      `an answer to ${x.request.method} ${new URL(x.request.url).pathname} (${x.operation}) that is not a server error: the interface lists 200, 400 and 404`,
      `HTTP ${x.response?.status}`,
    ),
    location: { operation: x.operation as Exclude<Exchange['operation'], 'external'>, pointer: '', exchangeId: x.id },
    evidence: x.evidence,
  };
}

/** Statuses the profile declares for an error kind that are 5xx: the gateway's declared answers, not server errors. */
function declaredServerStatuses(ctx: CheckContext): number[] {
  const kinds = ctx.profile.errors.kinds;
  return Object.keys(kinds).flatMap((kind) => {
    try {
      const status = kinds[kind as keyof typeof kinds]?.status ?? 0;
      return status >= 500 ? [status] : [];
    } catch (e) {
      // A status the profile does not state declares nothing: its 5xx answers count as server errors.
      if (e instanceof ProfilePointNotStated) return [];
      throw e;
    }
  });
}

/** Every request of the interface is answered: the first one left unanswered replaces the reading check's verdict. */
export const everyRequestAnswered: ObservationRule = {
  id: 'everyRequestAnswered',
  code: 'NO_ANSWER',
  effect: 'replaces',
  description:
    'Every request the kit sends to an operation is answered: one the target leaves unanswered (timed out, reset, refused) fails the check that needed the answer.',
  run(observation, ctx) {
    if (observation.inconclusive) return [];
    const x = unansweredExchange(observation);
    return x ? [noAnswerFinding(ctx.spec, x)] : [];
  },
};

/** No request of the interface is answered with a server error (a 5xx other than 503 and the profile's declared ones). */
export const neverServerErrorAnswer: ObservationRule = {
  id: 'neverServerErrorAnswer',
  code: 'SERVER_ERROR',
  effect: 'joins',
  description:
    'No request the kit sends to an operation is answered with a server error (a 5xx other than 503 and the statuses the profile declares): each is reported once, beside the check that read it.',
  run(observation, ctx) {
    if (observation.inconclusive) return [];
    const declared = declaredServerStatuses(ctx);
    return sentExchanges(observation)
      .filter((x) => answeredServerError(x, declared))
      .map((x) => serverErrorFinding(ctx.spec, x));
  },
};

/** A URL the target hands over outside its origin and allowedHosts is data, never followed: noted when it stopped a check. */
export const onlyTargetUrlsFollowed: ObservationRule = {
  id: 'onlyTargetUrlsFollowed',
  code: 'OFF_TARGET_URL',
  effect: 'whenSkipped',
  severity: 'info',
  description:
    "The kit follows no URL outside the target's origin and allowedHosts: each one the target handed over is noted (information) on the check it kept from running.",
  run(observation, _ctx, reader) {
    return sentExchanges(observation)
      .filter((x) => x.error?.kind === 'off-target')
      .map((x) => ({
        checkId: onlyTargetUrlsFollowed.id,
        requirementIds: [...reader.requirementIds],
        code: 'OFF_TARGET_URL',
        severity: 'info',
        title: findingTitle('OFF_TARGET_URL'),
        ...sides(
          "a URL on the target's origin or a host listed in allowedHosts",
          `${x.evidence.request.url}, ${x.error!.message}`,
        ),
        location: { operation: reader.operation, pointer: '', exchangeId: x.id },
        evidence: x.evidence,
      }));
  },
};

/** The engine's observation rules, in the order it applies them. */
export const ENGINE_RULES: readonly ObservationRule[] = [
  everyRequestAnswered,
  neverServerErrorAnswer,
  onlyTargetUrlsFollowed,
];
