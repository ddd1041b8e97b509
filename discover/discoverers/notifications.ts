/**
 * Notifications (`notifications`), through the kit's receiver: which operations notify (a direct payment, an APM
 * payment completed on its issuer page, a review, a payout, each with the receiver's URL), the method, media and
 * fields of the body; retries (every attempt refused: their number, the first delay, the factor), the time the
 * gateway waits for an answer (the first attempt held unanswered), and which statuses acknowledge (statuses
 * answered, a retry or none). The body's signature is told by the response-signature row, with every signed sample.
 */
import type { Exchange, OperationKey } from '../../core/model.js';
import { textAt, type Discoverer, type Facts } from '../context.js';
import type { Receiver } from '../../engine/receiver.js';
import type { Session } from '../session.js';
import { batch, followForms, itemOf, pay, type Paid } from '../world.js';
import { completeApm } from './apm.js';
import { documentFormat, inferOwnShape, pairsOf, type ShapePair } from './notification-shape.js';
import { answerOf } from '../answers.js';

const WAIT_MS = 4000;

/** Attempts received for a key until none comes for `quietMs` after the last (or `maxMs` in all). */
async function attemptsOf(
  r: Receiver,
  key: string,
  quietMs: (n: number, times: number[]) => number,
  maxMs: number,
  log: (line: string) => void = () => {},
): Promise<Exchange[]> {
  const start = Date.now();
  let got = await r.notifications(key, WAIT_MS);
  while (got.length && Date.now() - start < maxMs) {
    const times = got.map((x) => Date.parse(x.startedAt));
    const wait = quietMs(got.length, times);
    const before = Date.now();
    const more = await r.notifications(key, wait, got.length + 1);
    if (more.length > got.length) {
      got = more;
      continue;
    }
    // A silence counts only if the wait ended on time. One that ended late was a stalled process: the sender's
    // timers, where it shares the machine, ran late with it, and its next attempt may be on its way; wait again.
    const late = Date.now() - before - wait;
    if (late <= LATE_MS) break;
    log(`notifications: a ${wait} ms wait for ${key}'s attempt ${got.length + 1} ended ${late} ms late: waiting again`);
  }
  return got;
}

/** How late a wait may end and its silence still count (a loaded machine's ordinary timer lateness). */
const LATE_MS = 250;

const round = (n: number, step: number) => Math.round(n / step) * step;

/** The requests sent with the receiver's URL, and the keys their notifications are received under. */
interface Sent {
  direct: Paid;
  directKey: string;
  payout: Exchange;
  payoutKey: string;
  failedBody?: Record<string, unknown>;
  failedPayout?: Exchange;
  apm: Awaited<ReturnType<typeof completeApm>>;
  checkoutKey: string;
  held?: Awaited<ReturnType<typeof heldWithUrl>>;
}

/** The notifications received per request sent (`reviewed`: the held payment's, after its review). */
interface Received {
  fromDirect: Exchange[];
  fromPayout: Exchange[];
  fromFailedPayout: Exchange[];
  fromApm: Exchange[];
  fromHeld: Exchange[];
  fromCheckout: Exchange[];
  reviewed: Exchange[];
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const r = s.receiver;
  const url = s.config.notifyUrl;
  if (!r || !url) {
    d.unknown(
      'notifications',
      'no notification URL reaches the kit (notifyUrl for a remote target): notifications could not be observed',
    );
    return;
  }
  const sent = await sendWithUrl(s, facts, url);
  const got = await receive(s, r, sent);
  const { direct, payout, failedPayout } = sent;
  const { fromDirect, fromPayout, fromFailedPayout } = got;
  kindsNotified(s, facts, sent, got);
  // The schedule row's bodies count too (it runs beside this row: its waits and these overlap).
  const paymentPairs = [...pairsOf(fromDirect, direct.body), ...(await (facts.schedule ?? Promise.resolve([])))];
  ownShape(s, 'payment', paymentPairs);
  if (fromPayout.length)
    ownShape(s, 'payout', [
      ...pairsOf(fromPayout, answerOf(payout)?.body),
      ...(failedPayout ? pairsOf(fromFailedPayout, answerOf(failedPayout)?.body) : []),
    ]);
}

/** Which operations notify, all at once (each wait overlaps the others): every kind sent with the receiver's URL. */
async function sendWithUrl(s: Session, facts: Facts, url: string): Promise<Sent> {
  // An empty note: a signature skipping empty values tells itself from one that does not.
  const direct = await pay(s, { set: { notify_url: url, note: '' } });
  const directKey = String((direct.x.request.body as Record<string, unknown>).order_no);
  const payoutBody = s.body('payout', { notify_url: url });
  delete payoutBody.fee_paid_by;
  const payout = await s.send('payout', payoutBody);
  const payoutKey = String(payoutBody.request_id);
  // A payout failed by a trigger found (payout.ts): its notification fills the failure fields.
  const failing = facts.payoutFailures?.[0];
  const failedBody = failing ? { ...s.body('payout', { ...failing.request, notify_url: url }) } : undefined;
  if (failedBody) failedBody.request_id = s.body('payout').request_id;
  const failedPayout = failedBody ? await s.send('payout', failedBody) : undefined;
  const apm = await completeApm(s, /pay/i, url);
  const checkoutBody = s.body('checkout', { notify_url: url });
  const checkout = await s.send('checkout', checkoutBody);
  await followForms(s, checkout, /pay/i);
  const checkoutKey = String(checkoutBody.order_no);
  const held = facts.held ? await heldWithUrl(s, facts, url) : undefined;
  return { direct, directKey, payout, payoutKey, failedBody, failedPayout, apm, checkoutKey, held };
}

/** The notifications of every request sent, then the held payment's once it is reviewed. */
async function receive(s: Session, r: Receiver, sent: Sent): Promise<Received> {
  const { failedBody, apm, held } = sent;
  const [fromDirect, fromPayout, fromFailedPayout, fromApm, fromHeld, fromCheckout] = await Promise.all([
    r.notifications(sent.directKey, WAIT_MS),
    r.notifications(sent.payoutKey, WAIT_MS),
    failedBody ? r.notifications(String(failedBody.request_id), WAIT_MS) : Promise.resolve([]),
    apm.orderNo ? r.notifications(apm.orderNo, WAIT_MS) : Promise.resolve([]),
    held ? r.notifications(held.order_no, WAIT_MS) : Promise.resolve([]),
    r.notifications(sent.checkoutKey, WAIT_MS),
  ]);
  let reviewed: Exchange[] = [];
  if (held) {
    const flag = s.draft.get<string>('review.approve.flag') ?? '1';
    await batch(s, 'review', [itemOf(held, { review_flag: flag })]);
    reviewed = await r.notifications(held.order_no, WAIT_MS, fromHeld.length + 1);
  }
  return { fromDirect, fromPayout, fromFailedPayout, fromApm, fromHeld, fromCheckout, reviewed };
}

/** The method and media of the bodies, and which operations each kind (payment, payout) is sent after. */
function kindsNotified(s: Session, facts: Facts, sent: Sent, got: Received): void {
  const d = s.draft;
  const { fromDirect, fromApm, fromCheckout, fromHeld, fromPayout, reviewed } = got;
  const payment: OperationKey[] = [];
  if (fromDirect.length) payment.push('authoriseDirect');
  if (fromApm.length) payment.push('authoriseApm');
  if (fromCheckout.length) payment.push('checkout');
  if (reviewed.length > fromHeld.length) payment.push('review');
  const sample = fromDirect[0] ?? fromApm[0];
  if (sample) {
    d.set(
      'notifications.method',
      sample.request.method,
      s.evidence(sent.direct.x, "a direct payment with the receiver's notify_url"),
    );
    d.set(
      'notifications.mediaType',
      sample.request.encoding === 'form' ? 'form' : 'json',
      `content type ${sample.request.headers['content-type'] ?? '?'}`,
    );
    facts.notifications = [...fromDirect, ...fromApm, ...fromPayout];
    facts.notificationsOf = { payment: [...fromDirect, ...fromApm], payout: fromPayout };
  }
  // A payment the gateway did not take (a direct payment refused, an APM payment not completed) shows nothing of
  // whether its kind notifies: the list seen is then a part of the truth, shown, not stated.
  const untried = [...(sent.direct.payment ? [] : ['authoriseDirect']), ...(sent.apm.orderNo ? [] : ['authoriseApm'])];
  // Every kind of payment seen notifying, never an empty list (the format needs one operation at least).
  if (payment.length && untried.length)
    d.partial(
      'notifications.kinds.payment.sentAfter',
      `payments notified: ${payment.join(', ')}; not taken by the gateway, so not told: ${untried.join(', ')}: state after which operations a payment notification is sent`,
      payment,
      s.evidence(sent.direct.x),
    );
  else if (payment.length)
    d.set(
      'notifications.kinds.payment.sentAfter',
      payment,
      `payments notified: ${payment.join(', ')} (APM and checkout completed on their pages as the shopper)`,
    );
  else
    d.unknown(
      'notifications.kinds.payment',
      "no payment (direct, APM, checkout, reviewed) sent with the receiver's notify_url was notified: state after which operations a payment notification is sent",
      undefined,
      s.evidence(sent.direct.x),
    );
  // Which answer's fields a kind's body is built from shows only in its signature (the list of that answer signs
  // it): the response row decides it, or leaves it out.
  if (sample)
    d.unknown(
      'notifications.kinds.payment.bodyFrom',
      "which operation's answer the body is built from shows only in the notification's signature: not told",
    );
  if (fromPayout.length) {
    d.set(
      'notifications.kinds.payout.sentAfter',
      ['payout'],
      s.evidence(sent.payout, "a payout with the receiver's notify_url"),
    );
    d.unknown(
      'notifications.kinds.payout.bodyFrom',
      "which operation's answer the body is built from shows only in the notification's signature: not told",
    );
  } else
    d.unknown(
      'notifications.kinds.payout',
      "a payout with the receiver's notify_url was not notified (the format requires a payout notification)",
      undefined,
      s.evidence(sent.payout),
    );
}

/** The kind's own body shape (`ownShape`) when its bodies are not the answer's fields as they are. */
function ownShape(s: Session, kind: 'payment' | 'payout', pairs: ShapePair[]): void {
  const shape = inferOwnShape(
    pairs,
    documentFormat(s.spec, kind === 'payment' ? 'authoriseDirect' : 'payout', pairs[0]?.response),
  );
  if (!shape) return;
  const at = `notifications.kinds.${kind}.ownShape`;
  const open = shape.notes.length ? `; left out (review): ${shape.notes.join('; ')}` : '';
  s.draft.set(
    `${at}.template`,
    shape.template,
    `${pairs.length} ${kind} notification bodies not in the answer's shape, each value matched to the answer field holding it in every body, values no field holds kept as literals${open}`,
  );
  s.draft.set(
    `${at}.schema`,
    shape.schema,
    `from ${pairs.length} bodies: required = members in every body, types as seen, const = literals, minLength and pattern of a member carrying an answer field = the document's format of that field (where every value seen meets it); optional members and the gateway's own patterns no body tells: review`,
  );
}

/** A held payment notifying the receiver (its trigger: the e-mail domain or the amount). */
async function heldWithUrl(s: Session, facts: Facts, url: string) {
  const domain = facts.heldDomains?.[0];
  const amount = s.draft.get<string>('review.triggers.amountAtLeast');
  const trigger = domain ? { shopper_email: `shopper@${domain}` } : amount ? { amount } : {};
  const p = await pay(s, { set: { notify_url: url, ...trigger } });
  return p.payment?.orderStatus === facts.held?.orderStatus ? p.payment : undefined;
}

/**
 * The retry schedule and the acknowledging statuses (`notifications.retry`, `notifications.acknowledgement`): a row of
 * its own, run as soon as a payment can be made, so its waits overlap the other rows' probes.
 */
async function runSchedule(s: Session, facts: Facts): Promise<void> {
  const r = s.receiver;
  const url = s.config.notifyUrl;
  if (!r || !url) {
    s.draft.unknown('notifications.retry', 'no notification URL reaches the kit: retries no probe saw');
    s.draft.unknown('notifications.acknowledgement', 'no notification URL reaches the kit');
    return;
  }
  const pairs: ShapePair[] = [];
  facts.schedule = retries(s, r, url, pairs).then(() => pairs);
  await facts.schedule;
}

/** The backoff factors a schedule is fitted with (the ones senders use). */
const FACTORS = [1, 1.5, 2, 2.5, 3, 4, 5];

/** How far a measured delay may come before its schedule (the clocks' millisecond rounding). */
const EARLY_MS = 3;

/**
 * The retry schedule measured delays show: delay n = first × factor^n, each measured late by the sender's timer and
 * connection, never early (the sender's timer starts once it has the answer the delay is measured from). For every
 * factor of FACTORS the first delay is the longest (to 10 ms; a factor 1: the shortest delay to 50 ms)
 * no delay came before; the schedule kept is the one the delays are the least late over in all, by 30 ms at least
 * over any other factor's. Stated only when the delays agree with it: two no more than 50 ms late, three no more than 100 ms, of four or more all but one no more
 * than 100 ms (undefined: fewer than two delays, or no schedule fits).
 */
export function fitSchedule(
  gaps: readonly number[],
): { initialDelayMs: number; factor: number; how: string } | undefined {
  if (gaps.length < 2) return undefined;
  type Fit = { initialDelayMs: number; factor: number; total: number; late: number[] };
  let best: Fit | undefined;
  let runnerUp: Fit | undefined;
  for (const factor of FACTORS) {
    const top = Math.min(...gaps.map((g, i) => (g + EARLY_MS) / factor ** i));
    const first = factor === 1 ? round(Math.min(...gaps), 50) : Math.floor(top / 10) * 10;
    if (first < 10) continue;
    const late = gaps.map((g, i) => g - first * factor ** i);
    if (late.some((x) => x < -EARLY_MS)) continue;
    const total = late.reduce((x, y) => x + y, 0);
    const fit = { initialDelayMs: first, factor, total, late };
    if (!best || total < best.total) [runnerUp, best] = [best, fit];
    else if (!runnerUp || total < runnerUp.total) runnerUp = fit;
  }
  // Another factor the delays are nearly as little late over: the delays do not tell the two apart.
  if (!best || (runnerUp && runnerUp.total - best.total < 30)) return undefined;
  const late = [...best.late].sort((x, y) => x - y);
  const agree =
    gaps.length === 2
      ? late.at(-1)! <= 50
      : gaps.length === 3
        ? late.at(-1)! <= 100
        : late.slice(0, -1).every((x) => x <= 100);
  if (!agree) return undefined;
  const { initialDelayMs, factor } = best;
  return {
    initialDelayMs,
    factor,
    how: `fitted over ${gaps.length} delays, at most ${Math.round(late.at(-1)!)} ms late`,
  };
}

/**
 * One delay: the first as measured (to 50 ms; 100 ms from a second on), factor 1 (none shows). No latency can be told
 * apart from one delay (review: the evidence lists it).
 */
function fewDelays(gaps: readonly number[]): { initialDelayMs: number; factor: number; how: string } | undefined {
  if (!gaps.length) return undefined;
  const initialDelayMs = round(gaps[0]!, gaps[0]! < 1000 ? 50 : 100);
  return { initialDelayMs, factor: 1, how: 'one retry: no factor shows' };
}

/** Series of a notification's attempts sent at once: the refused ones (the schedule) and the held ones (the time-out). */
const SERIES = 3;
const HELD = 2;

/** How long the first retry is waited for, after the first attempt, to start the acknowledgement early (the series' own wait for it). */
const FIRST_RETRY_MS = 10_000;

/**
 * The delays between the attempts of several series, each the least of the series' delays at that place (a delay
 * is only ever measured late: the least is the nearest the schedule), and the most attempts of a series.
 */
export function leastDelays(series: readonly Exchange[][]): { attempts: number; gaps: number[] } {
  const gapsOf = (attempts: readonly Exchange[]) =>
    attempts
      .slice(1)
      .map((x, i) => Date.parse(x.startedAt) - Date.parse(attempts[i]!.startedAt) - attempts[i]!.durationMs);
  const all = series.map(gapsOf);
  const attempts = Math.max(0, ...series.map((x) => x.length));
  const gaps = Array.from({ length: Math.max(0, attempts - 1) }, (_, i) =>
    Math.min(...all.filter((g) => g.length > i).map((g) => g[i]!)),
  );
  return { attempts, gaps };
}

async function retries(s: Session, r: Receiver, url: string, pairs: ShapePair[]): Promise<void> {
  const d = s.draft;
  const keyOf = (x: Exchange) => String((x.request.body as Record<string, unknown>).order_no);
  // Every attempt refused: the schedule. The first attempt held: the time-out. Several of each at once.
  const orders = Array.from({ length: SERIES + HELD }, () => s.orderNo());
  orders.forEach((o, i) => {
    if (i >= SERIES) r.hold(o, 1);
    r.answerWith(o, 500);
  });
  const paid = await Promise.all(orders.map((o) => pay(s, { set: { notify_url: url, order_no: o } })));
  const refused = paid.slice(0, SERIES);
  const held = paid.slice(SERIES);
  const quiet = (_n: number, t: number[]) => {
    const gaps = t.slice(1).map((x, i) => x - t[i]!);
    const last = gaps.at(-1) ?? 1000;
    const factor = gaps.length >= 2 ? gaps.at(-1)! / gaps.at(-2)! : 3;
    // "None after" is an absence, stated from this wait: it covers the next delay of the schedule three times over and
    // 3 s at least, since the sender's timers run late on a loaded machine (a CI run stated 2 attempts of 3 with 1.5 s).
    return Math.min(30_000, Math.max(3000, last * Math.max(1, factor) * 3 + 1000));
  };
  // The held attempts are waited for only once a refused payment was notified at all (else 30 s waits for nothing).
  const t0 = Date.now();
  const log = s.options.log;
  const seriesP = Promise.all(refused.map((p) => attemptsOf(r, keyOf(p.x), quiet, 60_000, log))).then((x) => {
    log(`notifications: retry series done in ${Date.now() - t0} ms`);
    return x;
  });
  // The first refused payment's first attempt: the held attempts and the early acknowledgement both wait on it.
  const key0 = keyOf(refused[0]!.x);
  const firstP = r.notifications(key0, WAIT_MS);
  const heldP = firstP
    .then((first) =>
      first.length ? Promise.all(held.map((p) => r.notifications(keyOf(p.x), 30_000, 1))) : ([] as Exchange[][]),
    )
    .then((x) => {
      log(`notifications: held attempts done in ${Date.now() - t0} ms`);
      return x;
    });
  const ackP = firstP.then((first) => acknowledgeAtFirstRetry(s, r, url, key0, first));
  const [series, heldSeries, acknowledged] = await Promise.all([seriesP, heldP, ackP]);
  pairs.push(...pairsOf(series[0]!.slice(0, 1), refused[0]!.body));
  heldSeries.forEach((h, i) => pairs.push(...pairsOf(h.slice(0, 1), held[i]!.body)));
  const { attempts: count, gaps } = leastDelays(series);
  if (!count) {
    d.unknown('notifications.retry', 'no direct payment notification came: retries no probe saw');
    d.unknown('notifications.acknowledgement', 'no direct payment notification came');
    return;
  }
  const attempts = { length: count };
  d.set(
    'notifications.retry.maxAttempts',
    attempts.length,
    `${attempts.length} attempts of a notification answered HTTP 500, none after (${SERIES} notifications at once; delays: the least of each)`,
  );
  const delays = gaps.map((g) => `${g} ms`).join(', ');
  const fit = gaps.length >= 2 ? fitSchedule(gaps) : fewDelays(gaps);
  // A delay is measured late by the sender's timer and the machine's load, never to the millisecond the gateway
  // is set to: the fitted schedule is shown, not stated (two discoveries would not state the same numbers).
  if (fit) {
    const measured = `the delays measured between attempts (${delays}) fit a first delay of ${fit.initialDelayMs} ms and a factor ${fit.factor} (${fit.how}): state the gateway's own`;
    d.partial('notifications.retry.initialDelayMs', measured, fit.initialDelayMs, `delays between attempts ${delays}`);
    d.partial('notifications.retry.factor', measured, fit.factor, `delays ${delays} (${fit.how})`);
  } else if (gaps.length) {
    const why = `delays ${delays} fit no schedule of a first delay and a factor: state them`;
    d.unknown('notifications.retry.initialDelayMs', why);
    d.unknown('notifications.retry.factor', why);
  } else {
    d.unknown('notifications.retry.initialDelayMs', 'no retry came after a refused notification');
    d.unknown('notifications.retry.factor', 'no retry came after a refused notification');
  }
  // The sender's give-up timer, like its retry timers, is only ever late: the least of the held attempts.
  const gaveUp = heldSeries.map((h) => h[0]).filter((x): x is Exchange => !!x?.error);
  const first = gaveUp.sort((x, y) => x.durationMs - y.durationMs)[0];
  if (first)
    d.partial(
      'notifications.retry.timeoutMs',
      `the sender gave up unanswered attempts after about ${round(first.durationMs, 100)} ms as measured: state the gateway's own time-out`,
      round(first.durationMs, 100),
      `the sender gave up an unanswered attempt after ${gaveUp.map((x) => `${x.durationMs} ms`).join(', ')}`,
    );
  else d.unknown('notifications.retry.timeoutMs', 'an unanswered attempt was not given up within 30 s');
  // A notification sent once whatever the answer says nothing of what acknowledges it (every status looks like one).
  if (count < 2)
    d.unknown(
      'notifications.acknowledgement',
      'a notification answered HTTP 500 was not sent again: which statuses acknowledge one no probe can tell',
    );
  else if (!acknowledged) {
    const t1 = Date.now();
    await acknowledgement(s, r, url, gaps[0] ?? 1000);
    log(`notifications: acknowledgement done in ${Date.now() - t1} ms`);
  }
}

/**
 * The acknowledgement, started at the first retry of a refused notification (`key`, its `first` attempts as
 * received within WAIT_MS): it needs a notification sent
 * again after an HTTP 500 and the first delay, and both show then, so its waits overlap the rest of the retry series.
 * False when no retry came within the series' own wait for it (the series then decides).
 */
async function acknowledgeAtFirstRetry(
  s: Session,
  r: Receiver,
  url: string,
  key: string,
  first: Exchange[],
): Promise<boolean> {
  const two = first.length ? await r.notifications(key, FIRST_RETRY_MS, 2) : first;
  if (two.length < 2) return false;
  const t1 = Date.now();
  await acknowledgement(s, r, url, leastDelays([two]).gaps[0]!);
  s.options.log(`notifications: acknowledgement done in ${Date.now() - t1} ms`);
  return true;
}

/** The acknowledging statuses: 200 and the highest 2xx that stops the retries (statuses tried in two rounds). */
async function acknowledgement(s: Session, r: Receiver, url: string, delay: number): Promise<void> {
  const d = s.draft;
  const acked = async (statuses: number[]) => {
    const keys = statuses.map((st) => {
      const key = s.orderNo();
      r.answerWith(key, st);
      return key;
    });
    await Promise.all(keys.map((key) => pay(s, { set: { notify_url: url, order_no: key } })));
    const got = await Promise.all(keys.map((key) => r.notifications(key, delay * 2 + 1500, 2)));
    return statuses.map((st, i) => ({ st, key: keys[i]!, acked: got[i]!.length === 1 }));
  };
  // A retry that came late (a loaded machine) looks like an acknowledgement: the highest status taken for one is
  // waited on once more, twice as long, and given up (the next lower one tried) when its notification comes again.
  const confirmed = async (list: { st: number; key: string; acked: boolean }[]) => {
    for (const c of list.filter((x) => x.acked && x.st > 200).sort((a, b) => b.st - a.st)) {
      if ((await r.notifications(c.key, delay * 4 + 3000, 2)).length === 1) return;
      c.acked = false;
    }
  };
  const coarse = await acked([200, 201, 202, 204, 206, 226, 250, 299]);
  if (!coarse[0]!.acked) {
    d.unknown(
      'notifications.acknowledgement',
      'a notification answered 200 was sent again: what acknowledges no probe told',
    );
    return;
  }
  await confirmed(coarse);
  const lastOk = Math.max(...coarse.filter((c) => c.acked).map((c) => c.st));
  const firstNo = coarse.find((c) => !c.acked && c.st > lastOk)?.st;
  let max = lastOk;
  if (firstNo && firstNo - lastOk > 1) {
    const between = Array.from({ length: Math.min(firstNo - lastOk - 1, 30) }, (_, i) => lastOk + 1 + i);
    const fine = await acked(between);
    await confirmed(fine);
    max = Math.max(lastOk, ...fine.filter((c) => c.acked).map((c) => c.st));
  }
  d.set(
    'notifications.acknowledgement.statusMin',
    200,
    'a 200 answer acknowledges (no status below 200 answers a request)',
  );
  d.set(
    'notifications.acknowledgement.statusMax',
    firstNo || max < 299 ? max : 299,
    `acknowledged up to ${max}${firstNo ? `, ${firstNo} sent again` : ''}`,
  );
}

export const notificationScheduleDiscoverer: Discoverer = {
  id: 'notificationSchedule',
  decides: ['notifications.retry', 'notifications.acknowledgement'],
  after: ['payments'],
  run: runSchedule,
};

export const notificationsDiscoverer: Discoverer = {
  id: 'notifications',
  decides: ['notifications.method', 'notifications.mediaType', 'notifications.kinds'],
  after: ['payments', 'lifecycle', 'payout'],
  run,
};

void textAt;
