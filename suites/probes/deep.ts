/**
 * `deep`: per operation, `depth` generated requests valid for the spec and the profile (signed; batches and queries
 * naming payments the probe made) and `depth` breaking exactly one rule (a format, a type, a listed field left out,
 * the signature), from the schemas' fast-check arbitraries and the run's seed. Every exchange is judged as it is
 * answered (suites/checks/deep.ts); only failing ones are kept, each shrunk by fast-check to the smallest case that
 * still fails the same check. Refused invalid requests are followed up (the query shows nothing created, no state
 * moved) and the captures and refunds are booked in a ledger (never refunded above the capture, no capture after
 * a cancel).
 */
import fc from 'fast-check';
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import { STATELESS_DEEP_CHECKS, deepVerdict } from '../checks/deep.js';
import type { DeepCase, DeepCounts, DeepFailure } from '../facts.js';
import { FIELD } from '../fields.js';
import { batchItems, batchResults, itemSucceeded, responseObject, statusOf } from '../observe.js';
import { operationSet } from '../../core/spec/operations.js';
import { Inconclusive, type Steps, defineProbe } from './support.js';
import { type Generator, generator } from './deep-generator.js';

type Body = Record<string, unknown>;

/** Requests in flight at once per operation (the run's transport limiter bounds the total). */
const LANES = 4;
/** Most requests one shrink may send. */
const SHRINK_BUDGET = 250;

/** Run `count` jobs, `lanes` at a time. */
async function inLanes(count: number, lanes: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, count) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

/** Cases generated at once: the cases of a deep run are made a block at a time, never all held. */
const SAMPLE_BLOCK = 1_000;

/**
 * The `i`-th case fast-check generates from `arb` and `seed` (the case at path `i`, as `shrink` replays it), asked
 * for in increasing order: a block is sampled when first asked for (fast-check's path skips the cases before it), up to `count`.
 */
export function sampler(arb: fc.Arbitrary<DeepCase>, seed: number, count: number): (i: number) => DeepCase {
  let start = -1;
  let block: DeepCase[] = [];
  return (i) => {
    const wanted = i - (i % SAMPLE_BLOCK);
    if (wanted !== start) {
      block = fc.sample(arb, {
        seed,
        numRuns: Math.min(SAMPLE_BLOCK, count - wanted),
        ...(wanted ? { path: String(wanted) } : {}),
      });
      start = wanted;
    }
    return block[i - start]!;
  };
}

/** The generated case at `path` of `arb`, shrunk to the smallest that still fails `checkId` (or its unshrunk self past the budget). */
async function shrink(
  arb: fc.Arbitrary<DeepCase>,
  seed: number,
  index: number,
  fails: (c: DeepCase) => Promise<{ failed: boolean; exchange?: Exchange; followUp?: Observation }>,
): Promise<{ case: DeepCase; path: string; exchange?: Exchange; followUp?: Observation } | undefined> {
  let calls = 0;
  let last: { case: DeepCase; exchange?: Exchange; followUp?: Observation } | undefined;
  const result = await fc.check(
    fc.asyncProperty(arb, async (c) => {
      if (calls++ >= SHRINK_BUDGET) return true;
      const r = await fails(c);
      if (r.failed) last = { case: c, exchange: r.exchange, followUp: r.followUp };
      return !r.failed;
    }),
    { seed, path: String(index), numRuns: 1 },
  );
  if (!result.failed || !last) return undefined;
  return { ...last, path: result.counterexamplePath ?? String(index) };
}

/** Whether a valid exchange was accepted (2xx with every batch item a success), for the counts. */
function accepted(ctx: CheckContext, op: OperationKey, x: Exchange): boolean {
  if (statusOf(x) !== 200) return false;
  const results = batchResults(ctx.spec, op, responseObject(x, ctx.spec));
  if (results) return results.every((r) => itemSucceeded(ctx, op, r));
  const status = responseObject(x, ctx.spec)?.[FIELD.orderStatus];
  return status === undefined || status === ctx.profile.statusValues.order_status.approved;
}

/** One operation's deep run: its generator and depth, the counts and failures kept, the last exchange sent. */
interface DeepRun {
  op: OperationKey;
  ctx: CheckContext;
  steps: Steps;
  gen: Generator;
  depth: number;
  counts: DeepCounts;
  failures: DeepFailure[];
  lastExchange: Exchange | undefined;
}

/** What sending one kind of cases found: each check's first failing case, the first ledger breach, the cases naming each order and payment. */
interface Scan {
  firstFailing: Map<string, { index: number; count: number }>;
  lifecycle:
    | { index: number; case: DeepCase; exchange: Exchange; ledger: NonNullable<DeepFailure['ledger']> }
    | undefined;
  /** The first invalid case naming each order number, and each transaction id. */
  caseOfOrder: Map<string, number>;
  caseOfRecord: Map<string, number>;
}

/** Whether a generated exchange fails a deep check (no exchange: it does not). */
function judge(
  run: DeepRun,
  c: DeepCase,
  checkId: string,
  x: Exchange | undefined,
  extra: Parameters<typeof deepVerdict>[5] = {},
): boolean {
  return x ? deepVerdict(checkId, run.ctx, run.op, c, x, extra).length > 0 : false;
}

/** Count an invalid exchange and note the order number and payments its request named. */
function noteInvalid(run: DeepRun, scan: Scan, x: Exchange, i: number): void {
  run.counts.invalid++;
  if ((statusOf(x) ?? 0) >= 400 && (statusOf(x) ?? 0) < 500) run.counts.refused++;
  const body = x.request.body as Body | undefined;
  if (typeof body?.[FIELD.orderNo] === 'string' && !scan.caseOfOrder.has(String(body[FIELD.orderNo])))
    scan.caseOfOrder.set(String(body[FIELD.orderNo]), i);
  for (const item of body ? batchItems(run.ctx.spec, run.op, body) : []) {
    const id = item[FIELD.transactionId];
    if (typeof id === 'string' && !scan.caseOfRecord.has(id)) scan.caseOfRecord.set(id, i);
  }
}

/** Send the `depth` cases of one kind, lanes at a time, counting them and judging each by the stateless checks. */
async function scanCases(
  run: DeepRun,
  kind: 'valid' | 'invalid',
  arb: fc.Arbitrary<DeepCase>,
  kindSeed: number,
): Promise<Scan> {
  const { ctx, op, counts } = run;
  const cases = sampler(arb, kindSeed, run.depth);
  const scan: Scan = { firstFailing: new Map(), lifecycle: undefined, caseOfOrder: new Map(), caseOfRecord: new Map() };
  await inLanes(run.depth, LANES, async (i) => {
    const c = cases(i);
    const { exchange: x, ledger } = await run.gen.send(c, false);
    if (!x) return;
    run.lastExchange = x;
    if (kind === 'valid') {
      counts.valid++;
      if (accepted(ctx, op, x)) counts.accepted++;
      else if (statusOf(x) === 200) counts.declined++;
    } else noteInvalid(run, scan, x, i);
    for (const id of STATELESS_DEEP_CHECKS) {
      if (!judge(run, c, id, x)) continue;
      const seen = scan.firstFailing.get(id);
      if (!seen || i < seen.index) scan.firstFailing.set(id, { index: i, count: (seen?.count ?? 0) + 1 });
      else seen.count++;
    }
    if (ledger && !scan.lifecycle) scan.lifecycle = { index: i, case: c, exchange: x, ledger };
  });
  return scan;
}

/** Shrink each check's first failing case and keep it; keep the first ledger breach as it was. */
async function keepFailures(run: DeepRun, scan: Scan, arb: fc.Arbitrary<DeepCase>, kindSeed: number): Promise<void> {
  const { steps, failures } = run;
  for (const [checkId, { index, count }] of scan.firstFailing) {
    const shrunk = await shrink(arb, kindSeed, index, async (c) => {
      const r = await run.gen.send(c, false);
      return { failed: judge(run, c, checkId, r.exchange), exchange: r.exchange };
    });
    if (!shrunk?.exchange) continue;
    const step = `fail:${checkId}`;
    steps.addComputed(step, shrunk.exchange);
    failures.push({ checkId, case: shrunk.case, seed: kindSeed, path: shrunk.path, step, failing: count });
  }
  const { lifecycle } = scan;
  if (lifecycle) {
    const step = 'fail:deepLifecycleInvariants';
    steps.addComputed(step, lifecycle.exchange);
    failures.push({
      checkId: 'deepLifecycleInvariants',
      case: lifecycle.case,
      seed: kindSeed,
      path: String(lifecycle.index),
      step,
      failing: 1,
      ledger: lifecycle.ledger,
    });
  }
}

/** One follow-up query per 100 refused requests; a change is replayed on a fresh payment and shrunk. */
async function keepChange(run: DeepRun, scan: Scan, arb: fc.Arbitrary<DeepCase>, kindSeed: number): Promise<void> {
  const { gen, steps } = run;
  const changed = await gen.changed(steps);
  run.counts.followUps += gen.followUps();
  const indexes = [
    ...[...changed.orderNos].map((o) => scan.caseOfOrder.get(o)),
    ...[...changed.records].map((r) => scan.caseOfRecord.get(r)),
  ].filter((i): i is number => i !== undefined);
  if (!indexes.length) return;
  const index = Math.min(...indexes);
  const shrunk = await shrink(arb, kindSeed, index, async (c) => {
    const r = await gen.send(c, true);
    return {
      failed:
        !!r.exchange &&
        !!r.followUp &&
        judge(run, c, 'deepInvalidChangesNothing', r.exchange, { followUp: r.followUp }),
      exchange: r.exchange,
      followUp: r.followUp,
    };
  });
  if (!shrunk?.exchange || !shrunk.followUp) return;
  const step = 'fail:deepInvalidChangesNothing';
  steps.addComputed(step, shrunk.exchange);
  steps.addComputed(`${step}:followUp`, shrunk.followUp.steps.followUp!);
  steps.facts[`${step}:followUp`] = shrunk.followUp.facts.followUp;
  run.failures.push({
    checkId: 'deepInvalidChangesNothing',
    case: shrunk.case,
    seed: kindSeed,
    path: shrunk.path,
    step,
    failing: indexes.length,
  });
}

export const deep = defineProbe('deep', 'all', {}, async (op, client, ctx, steps) => {
  const depth = ctx.config.depth ?? 0;
  if (depth <= 0) throw new Inconclusive('no depth was asked (--depth N)');
  const seed = (ctx.config.seed + 7919 * (operationSet(ctx.spec, 'all').indexOf(op) + 1)) % 2 ** 31;
  const gen = await generator(op, client, ctx, steps);
  const run: DeepRun = {
    op,
    ctx,
    steps,
    gen,
    depth,
    counts: { valid: 0, accepted: 0, declined: 0, invalid: 0, refused: 0, followUps: 0 },
    failures: [],
    lastExchange: undefined,
  };
  steps.facts.depth = depth;
  steps.facts.seed = seed;
  for (const [kind, arb, kindSeed] of [
    ['valid', gen.valid, seed],
    ['invalid', gen.invalid, seed + 1],
  ] as const) {
    if (!arb) continue;
    const scan = await scanCases(run, kind, arb, kindSeed);
    await keepFailures(run, scan, arb, kindSeed);
    if (kind === 'invalid') await keepChange(run, scan, arb, kindSeed);
  }
  steps.facts.counts = run.counts;
  steps.facts.failures = run.failures;
  if (!run.lastExchange) throw new Inconclusive(`no generated ${op} request could be sent`);
  return steps.add(op, run.lastExchange);
});
