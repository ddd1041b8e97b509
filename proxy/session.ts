/**
 * A proxy session: every exchange the proxy passes on is judged as it comes (the merchant's request, then the
 * gateway's answer), booked in a ledger of the observed traffic, and tallied per check and operation; on stop the
 * invariants are judged against the ledger and the tallies become a run's results (the engine's outcome, roll-up and
 * verdicts), which `run`'s reporters write. Memory is bounded: the ledger (engine/ledger.ts's bounds), the order
 * numbers remembered, the findings kept per check and the exchange records the HAR holds.
 */
import { createHash } from 'node:crypto';
import { checkContext, observedOnlyConfig } from '../core/check-context.js';
import type { FailOn } from '../core/config/options.js';
import { maskValue, type MaskRules } from '../core/mask.js';
import type {
  Check,
  CheckContext,
  CheckResult,
  Exchange,
  ExchangeRecord,
  Finding,
  NotApplicable,
  Observation,
  OperationKey,
  RunResult,
} from '../core/model.js';
import type { LoadedProfile } from '../core/profile/load.js';
import { signedView, stringToSign, verify } from '../core/signing.js';
import type { SpecModel } from '../core/spec/load.js';
import { covers } from '../core/spec/operations.js';
import { type FindingSide, SIDE_WORDS } from '../core/run-result.js';
import { KIT_VERSION } from '../core/version.js';
import { exchangeRecord } from '../engine/evidence.js';
import { RunLedger } from '../engine/ledger.js';
import { toCheckResult } from '../engine/outcome.js';
import { planTests } from '../engine/plan.js';
import { buildRunResult } from '../engine/results.js';
import { availabilityNamed } from '../engine/rules.js';
import { FIELD } from '../suites/fields.js';
import { responseObject } from '../suites/observe.js';
import { LEDGER_FACT } from '../suites/probes/integrity.js';
import { ANSWER_CHECKS, ANSWER_RULES, LEDGER_CHECKS, ONLY_ON_2XX } from './answer-checks.js';
import { readRequestBody } from './exchange.js';
import { REQUEST_CHECKS, requestObservation, withEvidence } from './request-checks.js';

/** Order numbers of answered payments the session remembers (the oldest forgotten first). */
export const MAX_ORDER_NUMBERS = 100_000;
/** Findings kept per check and operation; beyond them each is counted. */
export const MAX_FINDINGS_PER_CHECK = 20;
/** Exchange records the reports (HAR) hold: those with a finding first, then the latest. */
export const MAX_RECORDS = 1_000;

/** Whose part of an exchange a finding is about. */
export type Side = FindingSide;
export { SIDE_WORDS };

/** How one exchange was judged. */
export interface Judged {
  exchange: Exchange;
  operation: OperationKey;
  request: Finding[];
  answer: Finding[];
}

/** What a session needs. */
export interface SessionOptions {
  spec: SpecModel;
  loaded: LoadedProfile;
  /** The merchant's signing secret (recomputes request signatures, verifies answers'); never printed. */
  secret?: string;
  merchantId?: string;
  accountId?: string;
  rules: MaskRules;
  failOn: FailOn;
  upstream: string;
  commandLine: string[];
}

/** One check on one operation over the session. */
interface Tally {
  check: Check;
  operation: OperationKey;
  findings: Finding[];
  more: number;
  judged: number;
  notApplicable?: string;
  ms: number;
}

/** A proxy session. */
export class ProxySession {
  readonly ledger = new RunLedger();
  readonly ctx: CheckContext;
  exchanges = 0;
  readonly started = new Date();
  /** Order number → the payment answered for it: its id, request line, time and status (a few fields, not the exchange). */
  private readonly orderNumbers = new Map<
    string,
    [id: string, operation: OperationKey, method: string, url: string, startedAt: string, status: number]
  >();
  private readonly tallies = new Map<string, Tally>();
  /** The exchanges the reports show (their masked evidence is built when the reports are written, not per exchange). */
  private readonly flagged: Exchange[] = [];
  private readonly latest: Exchange[] = [];

  constructor(readonly options: SessionOptions) {
    const { spec, loaded, secret } = options;
    const profile = loaded.profile;
    this.ctx = checkContext({
      spec,
      profile,
      config: observedOnlyConfig(options.upstream, options),
      rules: options.rules,
      verifySignature: (operation, direction, body) => {
        if (!secret || stringToSign(profile.signature, direction, operation, body) === undefined) return undefined;
        return verify(profile.signature, direction, operation, body, secret);
      },
    });
  }

  /** Run one check on an observation and tally its outcome; its findings, sided and masked. */
  private run(check: Check, o: Observation, side: Side, x: Exchange): Finding[] {
    const key = `${o.operation}/${check.id}`;
    let tally = this.tallies.get(key);
    if (!tally)
      this.tallies.set(key, (tally = { check, operation: o.operation, findings: [], more: 0, judged: 0, ms: 0 }));
    const t0 = performance.now();
    const outcome = check.run(o, this.ctx);
    tally.ms += performance.now() - t0;
    if (!Array.isArray(outcome)) {
      tally.notApplicable ??= (outcome as NotApplicable).notApplicable;
      return [];
    }
    tally.judged++;
    const findings = outcome.map((f) => maskValue({ ...withEvidence(f, x), side }, this.options.rules));
    this.keep(tally, findings);
    return findings;
  }

  private keep(tally: Tally, findings: readonly Finding[]): void {
    for (const f of findings) {
      if (tally.findings.length < MAX_FINDINGS_PER_CHECK) tally.findings.push(f);
      else tally.more++;
    }
  }

  /**
   * Judge one exchange: the request, then the answer; book it in the ledger. `forwarded`: the body the gateway got
   * when it is not the merchant's (`--notify` rewrote notify_url): the answer's echoes are judged against it.
   */
  judge(x: Exchange, operation: OperationKey, forwarded?: string): Judged {
    this.exchanges++;
    const { spec } = this.options;
    const body = x.request.body ?? {};
    const orderNo = typeof body[FIELD.orderNo] === 'string' ? (body[FIELD.orderNo] as string) : undefined;
    const payment = operation === 'authoriseDirect' || operation === 'authoriseApm' || operation === 'checkout';
    const earlier = payment && orderNo ? this.earlierPayment(orderNo) : undefined;
    const facts = { secretKnown: Boolean(this.options.secret), ...(earlier ? { orderNoUsedBy: earlier } : {}) };
    const ro = requestObservation(x, operation, facts);
    const request = REQUEST_CHECKS.filter((c) => covers(spec, c.operations, operation)).flatMap((c) =>
      this.run(c, ro, 'request', x),
    );
    const answered =
      forwarded === undefined
        ? x
        : ({ ...x, request: { ...x.request, ...readRequestBody(forwarded), bodyText: forwarded } } as Exchange);
    const answer = this.judgeAnswer(answered, operation, request.length === 0);
    if (payment && orderNo && x.response?.status === 200 && !earlier) this.remember(orderNo, x);
    this.ledger.add(x, { authenticated: this.authenticated(x, operation), atOperation: true });
    this.record(x, request.length + answer.length > 0);
    return { exchange: x, operation, request, answer };
  }

  /** The answer checks on the observation a `happy` check reads, and the engine's rules. */
  private judgeAnswer(x: Exchange, operation: OperationKey, clean: boolean): Finding[] {
    const { spec } = this.options;
    const answerBody = responseObject(x, spec);
    const signatureValid = answerBody ? this.ctx.verifySignature!(operation, 'response', answerBody) : undefined;
    const o: Observation = {
      probeId: 'happy',
      operation,
      main: x,
      steps: { [operation]: x },
      facts: {
        ...(signatureValid !== undefined ? { signatureValid } : {}),
        ...(this.options.secret ? {} : { signatureUnverifiable: 'no secret is configured' }),
      },
    };
    const status = x.response?.status ?? 0;
    const checks = [
      ...ANSWER_CHECKS.any,
      ...(clean ? ANSWER_CHECKS.clean.filter((c) => !ONLY_ON_2XX.has(c.id) || (status >= 200 && status < 300)) : []),
    ].filter((c) => covers(spec, c.operations, operation));
    const findings = checks.flatMap((c) => this.run(c, o, 'answer', x));
    for (const rule of ANSWER_RULES) {
      const reader = { checkId: rule.id, operation, requirementIds: [] };
      const found = rule
        .run(o, this.ctx, reader)
        .map((f) => maskValue({ ...f, side: 'answer' as const }, this.options.rules));
      if (!found.length) continue;
      const tally = this.tallyOfRule(rule.id, operation);
      this.keep(tally, found);
      findings.push(...found);
    }
    return findings;
  }

  /** The tally of an observation rule's findings: under the rule's own id, as a check of its own. */
  private tallyOfRule(id: string, operation: OperationKey): Tally {
    const key = `${operation}/${id}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      const rule = ANSWER_RULES.find((r) => r.id === id)!;
      const { requirementIds } = availabilityNamed(this.options.spec);
      const check: Check = {
        id,
        family: 'status',
        probe: 'proxy',
        operations: 'all',
        requirements: requirementIds,
        description: rule.description,
        run: () => [],
      };
      this.tallies.set(key, (tally = { check, operation, findings: [], more: 0, judged: 1, ms: 0 }));
    }
    return tally;
  }

  /** Whether a request authenticates, as the gateway should find: the merchant's ids, and a signature that verifies. */
  private authenticated(x: Exchange, operation: OperationKey): boolean {
    const body = x.request.body;
    if (!body) return false;
    const { merchantId, accountId } = this.options;
    if ((merchantId && body[FIELD.merchantId] !== merchantId) || (accountId && body[FIELD.accountId] !== accountId))
      return false;
    const view = signedView(body, x.request.encoding === 'form' ? 'form' : 'json');
    return this.ctx.verifySignature!(operation, 'request', view) !== false;
  }

  /** Remember the payment an order number was answered for (the oldest order number forgotten first). */
  private remember(orderNo: string, x: Exchange): void {
    if (this.orderNumbers.size >= MAX_ORDER_NUMBERS) this.orderNumbers.delete(this.orderNumbers.keys().next().value!);
    this.orderNumbers.set(orderNo, [
      x.id,
      x.operation as OperationKey,
      x.request.method,
      x.request.url,
      x.startedAt,
      x.response?.status ?? 0,
    ]);
  }

  /**
   * The earlier payment of an order number as a finding about its reuse shows it: its id, time, request line and
   * answer status (the session keeps no more of it, so a long session holds a few dozen bytes per order number).
   */
  private earlierPayment(orderNo: string): Exchange | undefined {
    const kept = this.orderNumbers.get(orderNo);
    if (!kept) return undefined;
    const [id, operation, method, url, startedAt, status] = kept;
    return {
      id,
      operation,
      request: { method, url, headers: {}, body: undefined, bodyText: '', encoding: 'raw' },
      startedAt,
      durationMs: 0,
      evidence: {
        request: {
          method,
          url,
          headers: {},
          body: '(not kept: the session keeps the id of each payment, not its body)',
        },
        curl: '',
        response: { status, headers: {}, bodyExcerpt: '', bodyBytes: 0, bodySha256: '' },
      },
    };
  }

  private record(x: Exchange, flagged: boolean): void {
    const list = flagged && this.flagged.length < MAX_RECORDS / 2 ? this.flagged : this.latest;
    list.push(x);
    if (this.latest.length > MAX_RECORDS / 2) this.latest.shift();
  }

  /** A notification the proxy received (judged by the caller), booked in the ledger and the records. */
  notification(x: Exchange, findings: readonly Finding[], check: Check | undefined, operation: OperationKey): void {
    this.ledger.addNotifications([x]);
    if (check) {
      const key = `${operation}/${check.id}`;
      let tally = this.tallies.get(key);
      if (!tally) this.tallies.set(key, (tally = { check, operation, findings: [], more: 0, judged: 0, ms: 0 }));
      tally.judged++;
      this.keep(tally, findings);
    }
    this.record(x, findings.length > 0);
  }

  /** The invariants against the ledger of the observed traffic: one run of each integrity check per operation seen. */
  judgeLedger(): Finding[] {
    const seen = new Set(this.ledger.entries.map((e) => e.operation));
    const view = {
      entries: [...this.ledger.entries],
      notifications: [...this.ledger.notifications],
      dropped: this.ledger.dropped,
    };
    const out: Finding[] = [];
    for (const check of LEDGER_CHECKS) {
      for (const operation of seen) {
        if (!covers(this.options.spec, check.operations, operation)) continue;
        const main = this.ledger.entries.find((e) => e.operation === operation)!.exchange;
        const o: Observation = { probeId: 'runLedger', operation, main, steps: {}, facts: { [LEDGER_FACT]: view } };
        out.push(...this.run(check, o, 'answer', main));
      }
    }
    return out;
  }

  /** Every exchange record the reports hold. */
  records(): ExchangeRecord[] {
    return [...this.flagged, ...this.latest].map(exchangeRecord);
  }

  /** The session's results, in the shape of a run's (the invariants judged first). */
  results(): RunResult {
    const { spec, loaded, failOn } = this.options;
    const today = this.started.toISOString().slice(0, 10);
    const results: CheckResult[] = [...this.tallies.values()].map((t) => {
      const findings = t.more
        ? [
            ...t.findings.slice(0, -1),
            {
              ...t.findings.at(-1)!,
              message: `${t.findings.at(-1)!.message} (and ${t.more + 1} more like it in the session)`,
            },
          ]
        : t.findings;
      const outcome = t.judged
        ? findings
        : { notApplicable: t.notApplicable ?? 'no exchange of the session concerned it' };
      return toCheckResult(spec, t.check, t.operation, outcome, [], today, t.ms);
    });
    const keys = new Set(results.map((r) => `${r.operation}/${r.checkId}`));
    const checks = [...new Map([...this.tallies.values()].map((t) => [t.check.id, t.check])).values()];
    const plan = planTests(spec, checks, { only: [], skip: [] }).filter((t) => keys.has(t.key));
    const ended = new Date();
    const warnings = this.ledger.dropped
      ? [
          `the ledger held the first ${this.ledger.entries.length} exchanges; the invariants were not judged on ${this.ledger.dropped} later ones`,
        ]
      : [];
    return buildRunResult(spec, plan, results, {
      metadata: {
        kitVersion: KIT_VERSION,
        nodeVersion: process.version,
        commandLine: this.options.commandLine,
        spec: { root: spec.root, digest: spec.digest },
        profile: {
          name: loaded.profile.name,
          version: loaded.profile.version,
          file: loaded.file,
          digest: loaded.digest,
        },
        configDigest: createHash('sha256')
          .update(JSON.stringify({ upstream: this.options.upstream, profile: loaded.digest, failOn }))
          .digest('hex'),
        target: { baseUrl: this.options.upstream, embedded: false },
        seed: 0,
        failOn,
        selection: { only: [], skip: [] },
        startedAt: this.started.toISOString(),
        endedAt: ended.toISOString(),
        durationMs: ended.getTime() - this.started.getTime(),
      },
      exchanges: this.exchanges,
      warnings,
      failOn,
    });
  }
}
