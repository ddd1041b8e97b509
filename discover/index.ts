/**
 * `profile discover`: drafts a profile of a sandbox by probing it. The discoverers of DISCOVERERS run as soon as the
 * rows they read have (rows reading nothing of each other run together), each deciding the profile points it
 * declares; the draft is assembled over the format's defaults, every point no probe decided is left out (profile
 * format 6: not stated) and listed as a question marked UNKNOWN, and the result is checked against the profile schema
 * and its consistency rules.
 */
import { schemeRanker } from './scheme-ranker.js';
import { maskOutgoing, maskText } from '../core/mask.js';
import { profileProblems } from '../core/profile/load.js';
import type { Facts, Discoverer } from './context.js';
import { leafPaths, leaveOutOpen, leftOutLines, renderDraft, type Point } from './draft.js';
import { applyFrom, type Contradiction } from './from.js';
import { reconcile } from './reconcile.js';
import { BudgetSpent, Session, type SessionOptions } from './session.js';
import { DISCOVERERS } from './table.js';

export type { SessionOptions } from './session.js';
export { DISCOVERERS } from './table.js';

/** What a discovery produced. */
export interface DiscoveryResult {
  /** The draft profile (valid when `problems` is empty). */
  profile: Record<string, unknown>;
  /** The draft as YAML, each value with its evidence as a comment. */
  yaml: string;
  points: Point[];
  /** Open points: each one line of the draft marked UNKNOWN (left out and listed, or a value to check). */
  unknowns: number;
  leaves: number;
  requests: number;
  durationMs: number;
  /** Schema and consistency problems of the draft (none when it validates). */
  problems: string[];
  /** Discoverers that stopped early, with why (their points are UNKNOWN). */
  stopped: { id: string; why: string }[];
  /** Points the `--from` profile states that the probes decided otherwise (the draft keeps the vendor's value). */
  contradictions: Contradiction[];
}

/** Options of a discovery: the session's, the draft's name, and the table to run (default: DISCOVERERS). */
export interface DiscoverOptions extends SessionOptions {
  name?: string;
  table?: readonly Discoverer[];
  /** Command line recorded in the draft's header. */
  commandLine?: string;
}

/** The table's rows in waves: each wave's rows read only rows of earlier waves. */
export function waves(table: readonly Discoverer[]): Discoverer[][] {
  const done = new Set<string>();
  const left = [...table];
  const out: Discoverer[][] = [];
  while (left.length) {
    const ready = left.filter((d) => d.after.every((a) => done.has(a) || !table.some((t) => t.id === a)));
    if (!ready.length) throw new Error(`discoverer table: a cycle among ${left.map((d) => d.id).join(', ')}`);
    out.push(ready);
    for (const d of ready) {
      done.add(d.id);
      left.splice(left.indexOf(d), 1);
    }
  }
  return out;
}

/**
 * Run every row of the table, each as soon as the rows it reads have finished (a row never waits for a slower
 * row it does not read: the notification waits overlap the other probes). A row whose reading row stopped, or
 * that would start once the request budget is spent, is not run.
 */
async function runTable(
  s: Session,
  facts: Facts,
  table: readonly Discoverer[],
  stopped: { id: string; why: string }[],
  log: (line: string) => void,
): Promise<void> {
  waves(table); // throws on a cycle
  let spent = false;
  const running = new Map<string, Promise<void>>();
  const start = (d: Discoverer): Promise<void> => {
    let p = running.get(d.id);
    if (p) return p;
    p = (async () => {
      const reads = table.filter((t) => d.after.includes(t.id));
      await Promise.all(reads.map(start));
      if (spent) {
        stopped.push({ id: d.id, why: 'not run: the request budget was spent' });
        return;
      }
      const failed = reads.filter((t) => stopped.some((x) => x.id === t.id));
      if (failed.length) {
        stopped.push({ id: d.id, why: `not run: ${d.after.join(', ')} stopped` });
        return;
      }
      const t0 = performance.now();
      try {
        await d.run(s, facts);
        log(`${d.id}: done in ${Math.round(performance.now() - t0)} ms (${s.requests} requests so far)`);
      } catch (e) {
        const why = maskOutgoing((e as Error)?.message ?? String(e));
        if (e instanceof BudgetSpent) spent = true;
        stopped.push({ id: d.id, why });
        log(`${d.id}: stopped: ${why}`);
      }
    })();
    running.set(d.id, p);
    return p;
  };
  await Promise.all(table.map(start));
}

/** Run a discovery against the target and return the draft. */
export async function discoverProfile(options: DiscoverOptions): Promise<DiscoveryResult> {
  const started = performance.now();
  const s = new Session(options);
  const table = options.table ?? DISCOVERERS;
  const facts: Facts = {
    wrongSignature: {},
    kinds: {},
    securityCode: options.cardSecurityCode,
    paymentMethods: options.paymentMethods.valid,
  };
  const stopped: { id: string; why: string }[] = [];
  schemeRanker(); // the ranking thread loads while the first probes run
  await s.start();
  try {
    await runTable(s, facts, table, stopped, options.log);
    for (const x of stopped) {
      const d = table.find((t) => t.id === x.id)!;
      for (const path of d.decides)
        if (!s.draft.covers(path))
          s.draft.unknown(path, `discovery of this point stopped (${x.why}); check it by hand`);
    }
  } finally {
    await s.close();
  }
  reconcile(s, facts);
  const contradictions = options.from ? applyFrom(s.draft, options.from) : [];
  const defaults = s.defaults as unknown as Record<string, unknown>;
  let profile = s.draft.assemble(defaults);
  s.draft.splitOpen(profile);
  s.draft.markUncovered(profile, () => 'no probe decides this point: state it if you know it');
  const points = s.draft.all();
  // Only what evidence decided is stated: every open point the format can leave out is left out, listed as a question.
  const stated = leaveOutOpen(s.draft.assemble(defaults), points);
  profile = stated.profile;
  const problems = profileProblems(profile);
  const header = [
    `Profile drafted by pagi-conform profile discover against ${options.baseUrl}`,
    `${options.commandLine ? `(${options.commandLine}) ` : ''}on ${new Date().toISOString().slice(0, 10)}: ${s.requests} requests.`,
    ...(options.from
      ? [
          `Started from ${options.from.file}: each point it states is written as it states it, marked confirmed, not contradicted, or CONTRADICTED (${contradictions.length}).`,
        ]
      : []),
    'Each value carries the evidence that decided it. Each line marked UNKNOWN is a point to review before a',
    'certification run (README: "Certify your gateway"): a point no probe decided is left out (listed below; an optional',
    'one is named in notStated, as its absence would say something), or, where the format cannot leave it out, holds a',
    'value to check.',
    ...leftOutLines(stated.leftOut),
  ];
  const yaml = renderDraft(profile, points, header, (text) => maskText(maskOutgoing(text), s.rules));
  return {
    profile,
    yaml,
    points,
    unknowns: s.draft.unknowns(),
    leaves: leafPaths(profile).length,
    requests: s.requests,
    durationMs: Math.round(performance.now() - started),
    problems,
    stopped,
    contradictions,
  };
}
