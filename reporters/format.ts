/** What several reporters share: status order and labels, counts, the catalogue's statements, evidence lookup. */
import path from 'node:path';
import type {
  CheckResult,
  CheckStatus,
  Evidence,
  Family,
  Finding,
  Level,
  OperationKey,
  RunResult,
  Severity,
} from '../core/model.js';
import { kitSpec, loadSpec } from '../core/spec/load.js';
import type { RunEnd } from '../core/reporter.js';
import { SEVERITY_ORDER, countsAs, failedAtLevel, severityRank, sidePrefix } from '../core/run-result.js';

/** Check statuses in report order. */
export const STATUSES: readonly CheckStatus[] = ['passed', 'failed', 'waived', 'skipped', 'not_applicable'];

/** A status as people read it (`not applicable`). */
export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}

/**
 * How many checks were not judged because the profile does not state a point they need (profile format 6), as every
 * report says it: `14 checks not judged: 6 profile points not stated`; undefined when there is none.
 */
export function notJudgedLine(result: Pick<RunResult, 'totals'>): string | undefined {
  const n = result.totals.notStated;
  if (!n?.checks) return undefined;
  return `${n.checks} check${n.checks === 1 ? '' : 's'} not judged: ${n.points} profile point${n.points === 1 ? '' : 's'} not stated`;
}

/** `operation/checkId`, the name of a check result everywhere. */
export function checkName(result: Pick<CheckResult, 'operation' | 'checkId'>): string {
  return `${result.operation}/${result.checkId}`;
}

/** Counts per status of a list of results. */
export function countByStatus(results: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { passed: 0, failed: 0, waived: 0, skipped: 0, not_applicable: 0 };
  for (const r of results) counts[r.status]++;
  return counts;
}

/** Families and operations present in the results, in first-seen order. */
export function groupsOf(result: RunResult): { families: Family[]; operations: OperationKey[] } {
  return {
    families: [...new Set(result.checks.map((c) => c.family))],
    // A run with --spec-root may name operations of its own spec: the results say any operation key.
    operations: [...new Set(result.checks.map((c) => c.operation as OperationKey))],
  };
}

/** Findings that say what is wrong (information-only findings left out). */
export function problems(result: CheckResult): Finding[] {
  return result.findings.filter((f) => f.severity !== 'info');
}

/**
 * The requirements a failed (or waived) result fails: those its failing findings name, in the result's order (a
 * requirement is failed only by a finding that names it); all of them when no finding names one.
 */
export function failedRequirements(result: CheckResult): string[] {
  const named = new Set(problems(result).flatMap((f) => f.requirementIds));
  const own = result.requirementIds.filter((id) => named.has(id));
  const other = [...named].filter((id) => !result.requirementIds.includes(id));
  return own.length || other.length ? [...own, ...other] : [...result.requirementIds];
}

/** The evidence that reproduces a result: its first finding's that has some. */
export function evidenceOf(result: CheckResult): Evidence | undefined {
  return result.findings.find((f) => f.evidence)?.evidence;
}

/** A step a finding rests on: the exchange's id and evidence, and the identifiers it takes from earlier answers. */
type Rest = { exchangeId?: string; evidence: Evidence; uses?: NonNullable<Finding['exchanges']>[number]['uses'] };

/** Every exchange a finding rests on with its evidence, in the order sent (one, or none, for most findings). */
export function findingEvidence(f: Finding): Rest[] {
  if (f.exchanges?.length) return f.exchanges;
  return f.evidence
    ? [{ ...(f.location.exchangeId ? { exchangeId: f.location.exchangeId } : {}), evidence: f.evidence }]
    : [];
}

/** The evidence that reproduces a result: every exchange its first finding with evidence rests on. */
export function evidenceListOf(result: CheckResult): Evidence[] {
  const first = result.findings.find((f) => f.evidence || f.exchanges?.length);
  return first ? findingEvidence(first).map((x) => x.evidence) : [];
}

/** One step replaying a finding: its evidence, and (when the finding rests on several) the comment saying which. */
export interface ReplayStep {
  evidence: Evidence;
  /** `# step 2 of 3: POST /v1/refund, the failing request; …` (several steps only). */
  comment?: string;
  /** The exchange the finding is about (several steps only). */
  failing?: boolean;
}

/**
 * The steps replaying a finding, in the order the kit sent them (results 1.3; earlier results list the failing
 * exchange first). With several, each has a comment line: its number, its request, whether it is the failing one,
 * and the identifiers it takes from an earlier step's answer: a replay makes new transactions, so those values are
 * to be taken from the replayed earlier answers.
 */
export function findingReplay(f: Finding): ReplayStep[] {
  const steps = findingEvidence(f);
  if (steps.length < 2) return steps.map((s) => ({ evidence: s.evidence }));
  const number = new Map(steps.map((s, i) => [s.exchangeId, i + 1]));
  return steps.map((s, i) => {
    const uses = (s.uses ?? []).map(
      (u) =>
        `replaying, replace ${JSON.stringify(u.value)} at ${u.field} by the ${u.fromField} step ${number.get(u.from) ?? '?'} answers`,
    );
    let where = s.evidence.request.url;
    try {
      where = new URL(where).pathname;
    } catch {
      // a URL that does not parse is shown as it is
    }
    const failing = steps.findIndex((x) => x.exchangeId === f.location.exchangeId);
    const role = i === failing ? 'the failing request' : failing >= 0 && i > failing ? 'a follow-up' : 'a set-up step';
    return {
      evidence: s.evidence,
      failing: i === failing,
      comment: `# step ${i + 1} of ${steps.length}: ${s.evidence.request.method} ${where}, ${role}${uses.length ? `; ${uses.join('; ')}` : ''}`,
    };
  });
}

/** The replay of a result: the steps of its first finding with evidence (none without). */
export function replayOf(result: CheckResult): ReplayStep[] {
  const first = result.findings.find((f) => f.evidence || f.exchanges?.length);
  return first ? findingReplay(first) : [];
}

/** The run's results.json as the reports name it: the one written, else where `--reporter json` writes it. */
export function resultsFileOf(end: Pick<RunEnd, 'files' | 'outDir'>): string {
  const written = end.files.find((f) => path.basename(f) === 'results.json');
  return shownPath(written ?? path.join(end.outDir, 'results.json'));
}

/**
 * The command running a failed check again (`pagi-conform reproduce`), for a failure resting on several steps: it
 * makes the set-up anew and takes the identifiers from the new answers, as the curl lines cannot.
 */
export function reproduceCommand(result: CheckResult, resultsFile: string): string {
  const file = /^[A-Za-z0-9_./-]+$/.test(resultsFile) ? resultsFile : `'${resultsFile.replace(/'/g, `'\\''`)}'`;
  return `pagi-conform reproduce ${file} ${result.checkId}@${result.operation}`;
}

/** The evidence of an exchange as text: the request line, the curl line reproducing it (headers and body), the response. */
export function evidenceText(evidence: Evidence): string {
  const lines = [`request: ${evidence.request.method} ${evidence.request.url}`, `reproduce: ${evidence.curl}`];
  if (evidence.response) {
    lines.push(`response: HTTP ${evidence.response.status}`);
    for (const [name, value] of Object.entries(evidence.response.headers)) lines.push(`  ${name}: ${value}`);
    if (evidence.response.bodyExcerpt) lines.push(`  body: ${evidence.response.bodyExcerpt}`);
  } else lines.push('response: none');
  return lines.join('\n');
}

/** One line per finding: `CODE /pointer: message` (a proxy's finding led by its side: `your request: …`). */
export function findingLine(f: Finding): string {
  return `${sidePrefix(f)}${f.code} ${f.location.pointer || '/'}: ${f.message}`;
}

/** A count with its noun (`1 warning`, `4 warnings`). */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Names with their levels, the first `shown` of them and how many more. */
function namedChecks(list: readonly { check: string; level: string }[], shown: number): string {
  const names = list.slice(0, shown).map((x) => `${x.check} (${x.level})`);
  return names.join(', ') + (list.length > shown ? ` and ${list.length - shown} more` : '');
}

/**
 * The overall verdict in one line, saying what failed: NOT CONFORMANT and INCONCLUSIVE with their reasons; a pass
 * with failures below --fail-on as "CONFORMANT with N warnings: " and the three most serious by name, never bare.
 */
export function verdictLine(result: RunResult): string {
  const warnings = result.verdicts?.document.warnings ?? [];
  if (result.verdict === 'CONFORMANT' && warnings.length) {
    const partial = result.verdictReasons.filter((r) => r.startsWith('partial run'));
    return `verdict: ${verdictHeadline(result)}: ${namedChecks(warnings, 3)}${partial.length ? ` (${partial.join(' ')})` : ''}`;
  }
  return `verdict: ${result.verdict}${result.verdictReasons.length ? ` (${result.verdictReasons.join(' ')})` : ''}`;
}

/** The overall verdict as a headline: a pass with warnings says so ("CONFORMANT with 4 warnings"). */
export function verdictHeadline(result: RunResult): string {
  const warnings = result.verdicts?.document.warnings.length ?? 0;
  return result.verdict === 'CONFORMANT' && warnings
    ? `CONFORMANT with ${counted(warnings, 'warning')}`
    : result.verdict;
}

/** The two verdicts, one line each: document conformance (at --fail-on) and payment integrity (in the catalogue's words). */
export function verdictLines(result: RunResult): string[] {
  const v = result.verdicts;
  if (!v) return [];
  const d = v.document;
  const document =
    d.verdict === 'NOT CONFORMANT'
      ? `${counted(d.failed.length, 'check')} failed at or above ${d.failOn}: ${namedChecks(d.failed, 3)}`
      : d.verdict === 'INCONCLUSIVE'
        ? (d.reasons[0] ?? '')
        : d.warnings.length
          ? `${counted(d.warnings.length, 'warning')} below ${d.failOn}`
          : 'no failed check';
  const i = v.integrity;
  const integrity =
    i.verdict === 'FAILED'
      ? i.broken.map((b) => `${b.breach} (${b.id})`).join('; ')
      : i.verdict === 'PASSED'
        ? 'no invariant broken'
        : (i.reasons[0] ?? '');
  return [
    `document conformance (--fail-on ${d.failOn}): ${d.verdict}${document ? ` — ${document}` : ''}`,
    `payment integrity: ${i.verdict}${integrity ? ` — ${integrity}` : ''}`,
  ];
}

/**
 * How serious a check result's failure is, for "most serious first": its rank in the one severity order (an invariant
 * broken first, then the document level it fails), from the run's verdicts; failed results the verdicts do
 * not list (results written before 1.3) come last, in their order.
 */
export function seriousness(result: RunResult): (r: CheckResult) => number {
  const rank = new Map<string, number>();
  for (const b of result.verdicts?.integrity.broken ?? [])
    for (const c of b.checks) rank.set(c, severityRank('invariant'));
  for (const x of [...(result.verdicts?.document.failed ?? []), ...(result.verdicts?.document.warnings ?? [])])
    if (!rank.has(x.check)) rank.set(x.check, severityRank(x.level));
  return (r) => rank.get(checkName(r)) ?? SEVERITY_ORDER.length;
}

const catalogues = new WeakMap<RunResult, Map<string, { level: Level }>>();

/**
 * A check result's label, for every report: a failed or waived check's is the level it fails at, the one the verdicts
 * judge it by (`failedAtLevel`, on the catalogue levels of the run's requirements); any other's is its severity (its
 * requirements' strongest level).
 */
export function levelLabel(result: RunResult, r: CheckResult): Severity {
  return failedAtLevel(catalogueOf(result), r) ?? r.severity;
}

/** The catalogue levels of a run's requirements (what its results are read against). */
function catalogueOf(result: RunResult): Map<string, { level: Level }> {
  let catalogue = catalogues.get(result);
  if (!catalogue) {
    catalogue = new Map(result.requirements.map((q) => [q.id, { level: q.level }]));
    catalogues.set(result, catalogue);
  }
  return catalogue;
}

/**
 * Whether a check result counts as `could not run` for a verdict (`countsAs`): it traces to a `must` requirement or
 * to an invariant, the run selected it, and it could not run. The verdicts' own rule, so the lists agree with them.
 */
export function couldNotRun(result: RunResult, r: CheckResult): boolean {
  // Whether a result could not run does not depend on --fail-on.
  const counts = countsAs(catalogueOf(result), r, 'must');
  return counts.document?.as === 'could not run' || counts.integrity.coverage === 'could not run';
}

/**
 * The testable requirements no check ran for (`coverage.unchecked`), each with why: the reasons its checks give
 * (not applicable, could not run, not selected), or that no check traces to it. `requirements checked: N/M` names
 * these everywhere it is printed.
 */
export function uncheckedRequirements(result: RunResult): { id: string; level: string; why: string }[] {
  const byName = new Map(result.checks.map((c) => [checkName(c), c]));
  return result.coverage.unchecked.map((id) => {
    const req = result.requirements.find((r) => r.id === id);
    const checks = (req?.checks ?? []).flatMap((n) => byName.get(n) ?? []);
    const reasons = [...new Set(checks.map((c) => `${statusLabel(c.status)}: ${c.reason ?? 'no reason given'}`))];
    const why = reasons.length
      ? `${reasons.slice(0, 2).join('; ')}${reasons.length > 2 ? ` (and ${reasons.length - 2} more reasons)` : ''}`
      : 'no check traces to it';
    return { id, level: req?.level ?? '?', why };
  });
}

/** `uncheckedRequirements` as one line each: `PAGI-X-001 (level): why`. */
export function uncheckedLines(result: RunResult): string[] {
  return uncheckedRequirements(result).map((u) => `${u.id} (${u.level}): ${u.why}`);
}

/** The failed check results, most serious first (plan order among equals). */
export function failedBySeriousness(result: RunResult): CheckResult[] {
  const rank = seriousness(result);
  return result.checks
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.status === 'failed')
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

/**
 * Statements of the catalogue's requirements by id, from the spec the run used (the kit's own when the digests
 * match); empty when that spec cannot be read here (a merged run from another machine).
 */
export function statements(result: RunResult): Map<string, string> {
  try {
    const own = kitSpec();
    const spec = own.digest === result.metadata.spec.digest ? own : loadSpec(result.metadata.spec.root);
    return new Map([...spec.requirements.values()].map((r) => [r.id, r.statement]));
  } catch {
    return new Map();
  }
}

/** Text with control characters (terminal escapes, NUL, …) shown as `\xNN` / `\u{…}`: safe to print or put in XML. */
export function printable(text: string): string {
  // Tab and newline stay; every other C0/C1 control, lone surrogates and the XML non-characters are shown escaped.
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) =>
      c.length === 1 && c.charCodeAt(0) < 0x100
        ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`
        : `\\u{${c.charCodeAt(0).toString(16)}}`,
  );
}

/** A path for people: relative to the working folder. */
export function shownPath(file: string): string {
  return path.relative(process.cwd(), file) || file;
}
