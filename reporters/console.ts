/**
 * Console reporter: live progress (a line per operation of each family with the counts so far; on a terminal also a
 * running counter), then the family × status and operation × status tables, the failed checks with their findings
 * and curl line, the must checks that could not run, the files written and the verdict on the last line. Colour
 * only on a terminal and when NO_COLOR is not set. Text from the target is printed with control characters escaped.
 */
import type { Writable } from 'node:stream';
import type { CheckResult, CheckStatus, Family, OperationKey, RunResult } from '../core/model.js';
import {
  STATUSES,
  checkName,
  countByStatus,
  evidenceListOf,
  failedRequirements,
  findingLine,
  levelLabel,
  printable,
  problems,
  replayOf,
  reproduceCommand,
  couldNotRun,
  resultsFileOf,
  shownPath,
  failedBySeriousness,
  statusLabel,
  uncheckedRequirements,
  verdictLine,
  verdictLines,
  notJudgedLine,
} from './format.js';
import { NOT_SELECTED } from '../core/run-result.js';
import type { KitReporter, RunEnd } from '../core/reporter.js';

type Paint = (code: string, text: string) => string;

const GREEN = '32';
const RED = '31';
const YELLOW = '33';
const DIM = '2';
const BOLD = '1';

const STATUS_COLOUR: Record<CheckStatus, string> = {
  passed: GREEN,
  failed: RED,
  waived: YELLOW,
  skipped: YELLOW,
  not_applicable: DIM,
};
const SHORT: Record<CheckStatus, string> = {
  passed: 'passed',
  failed: 'failed',
  waived: 'waived',
  skipped: 'skipped',
  not_applicable: 'n/a',
};

/** Whether to colour: a terminal, and NO_COLOR unset or empty (https://no-color.org). */
function useColour(out: Writable & { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(out.isTTY) && !env.NO_COLOR;
}

function counts(results: readonly CheckResult[], paint: Paint): string {
  const c = countByStatus(results);
  const parts = STATUSES.filter((s) => c[s] > 0).map((s) => paint(STATUS_COLOUR[s], `${c[s]} ${statusLabel(s)}`));
  return parts.join(', ') || 'none';
}

/** A fixed-width table: first column left-aligned, the others right-aligned. */
function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`.trimEnd();
  return [line(head), ...rows.map(line)];
}

function statusTable(
  title: string,
  keys: readonly string[],
  pick: (r: CheckResult) => string,
  checks: readonly CheckResult[],
): string[] {
  const rows = keys.map((k) => {
    const c = countByStatus(checks.filter((r) => pick(r) === k));
    return [k, ...STATUSES.map((s) => String(c[s])), String(STATUSES.reduce((n, s) => n + c[s], 0))];
  });
  const total = countByStatus(checks);
  rows.push(['total', ...STATUSES.map((s) => String(total[s])), String(checks.length)]);
  return table([title, ...STATUSES.map((s) => SHORT[s]), 'total'], rows);
}

/** What the lines of the failed checks share: the run, the paint, the curl lines printed so far and who rests on each. */
interface FailedContext {
  run: RunResult;
  paint: Paint;
  curls: Map<string, string>;
  users: ReadonlyMap<string, readonly string[]>;
  /** The run's results.json as `pagi-conform reproduce` takes it. */
  resultsFile: string;
}

/**
 * The lines of one failed check: its findings, then the requests they rest on. A single request is printed once for
 * the whole list: under the first check that rests on it, with the other checks resting on it on one line after it.
 * Several steps are printed whole, in the order sent, each after a comment saying which step it is (the failing one
 * marked, the identifiers to take from earlier answers named), then the `pagi-conform reproduce` command.
 */
function failedLines(result: CheckResult, c: FailedContext): string[] {
  const { paint, curls, users } = c;
  // Labelled with the level it fails at and the requirements its findings name, as the verdict lines judge it.
  const failing = failedRequirements(result);
  const ids = failing.length > 6 ? [...failing.slice(0, 6), `… ${failing.length - 6} more`] : failing;
  const lines = [`  ${paint(RED, '✗')} ${checkName(result)} [${levelLabel(c.run, result)}] ${ids.join(' ')}`];
  const findings = problems(result);
  for (const f of findings.slice(0, 3)) lines.push(`      ${printable(findingLine(f))}`);
  if (findings.length > 3) lines.push(`      … ${findings.length - 3} more finding(s)`);
  const steps = replayOf(result);
  if (steps.length > 1) {
    for (const step of steps) {
      curls.set(step.evidence.curl, curls.get(step.evidence.curl) ?? checkName(result));
      lines.push(`      ${paint(DIM, printable(step.comment!))}`, `      ${paint(DIM, printable(step.evidence.curl))}`);
    }
    lines.push(`      replay the steps with fresh identifiers: ${printable(reproduceCommand(result, c.resultsFile))}`);
    return lines;
  }
  for (const { evidence } of steps) {
    if (curls.has(evidence.curl)) continue;
    curls.set(evidence.curl, checkName(result));
    lines.push(`      ${paint(DIM, printable(evidence.curl))}`);
    const others = (users.get(evidence.curl) ?? []).filter((n) => n !== checkName(result));
    if (others.length)
      lines.push(
        `      ${paint(DIM, `(the same request for ${others.length > 4 ? `${others.slice(0, 4).join(', ')} and ${others.length - 4} more` : others.join(', ')})`)}`,
      );
  }
  return lines;
}

/** For each request (its curl line), the failed checks resting on it, in the order they are listed. */
function requestUsers(failed: readonly CheckResult[]): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const r of failed)
    for (const e of evidenceListOf(r)) {
      const list = users.get(e.curl) ?? [];
      if (!list.includes(checkName(r))) list.push(checkName(r));
      users.set(e.curl, list);
    }
  return users;
}

function summary(result: RunResult, end: RunEnd, paint: Paint): string[] {
  const files = end.files;
  const { checks } = result;
  const lines = ['', ...statusTable('family', [...new Set(checks.map((c) => c.family))], (r) => r.family, checks)];
  lines.push('', ...statusTable('operation', [...new Set(checks.map((c) => c.operation))], (r) => r.operation, checks));
  // Most serious first: a broken invariant, then must, expected, profile.
  const failed = failedBySeriousness(result);
  const curls = new Map<string, string>();
  const users = requestUsers(failed);
  if (failed.length)
    lines.push(
      '',
      `failed checks (${failed.length}):`,
      ...failed.flatMap((r) => failedLines(r, { run: result, paint, curls, users, resultsFile: resultsFileOf(end) })),
    );
  if ([...curls.keys()].some((c) => c.includes('$PAGI_')))
    lines.push(
      paint(
        DIM,
        '  (the curl lines read $PAGI_CARD, $PAGI_CARD_MONTH, $PAGI_CARD_YEAR, $PAGI_CVC and $PAGI_SECRET: export the test card, its expiry month and year, security code and secret of the config first)',
      ),
    );
  const waived = checks.filter((r) => r.status === 'waived');
  if (waived.length)
    lines.push(
      '',
      `waived checks (${waived.length}):`,
      ...waived.map((r) => `  - ${checkName(r)}: ${printable(r.reason ?? '')}`),
    );
  const skippedMust = checks.filter((r) => couldNotRun(result, r));
  if (skippedMust.length) {
    lines.push('', 'must and invariant checks that could not run:');
    for (const r of skippedMust.slice(0, 20)) lines.push(`  - ${checkName(r)}: ${printable(r.reason ?? '')}`);
    if (skippedMust.length > 20) lines.push(`  … ${skippedMust.length - 20} more`);
  }
  for (const w of result.warnings) lines.push(paint(YELLOW, `warning: ${printable(w)}`));
  const { checked, testable } = result.coverage;
  const selected = checks.filter((r) => r.reason !== NOT_SELECTED).length;
  const counted = selected === checks.length ? `${selected}` : `${selected} selected of ${checks.length}`;
  lines.push(
    '',
    `checks: ${counted}; seed: ${result.metadata.seed}; requirements checked: ${checked}/${testable}; exchanges: ${result.totals.exchanges}; ${(result.metadata.durationMs / 1000).toFixed(1)} s`,
  );
  const notJudged = notJudgedLine(result);
  if (notJudged) lines.push(`${notJudged} (each named in results.json: reason, notStated)`);
  // Named with why; those a selected run left out are counted, not listed.
  const all = uncheckedRequirements(result);
  const unselected = all.filter((u) => u.why === `skipped: ${NOT_SELECTED}`).length;
  const unchecked = all
    .filter((u) => u.why !== `skipped: ${NOT_SELECTED}`)
    .map((u) => `${u.id} (${u.level}): ${u.why}`);
  if (all.length) {
    lines.push(`requirements not checked (${all.length}):`);
    for (const u of unchecked.slice(0, 10)) lines.push(`  - ${printable(u)}`);
    if (unchecked.length > 10) lines.push(`  … ${unchecked.length - 10} more (report.html, results.json coverage)`);
    if (unselected) lines.push(`  - ${unselected} whose checks --only/--skip left out`);
  }
  if (files.length) lines.push(`reports: ${files.map(shownPath).join(', ')}`);
  // The two verdicts, one line each, then the overall verdict on the last line.
  const v = result.verdicts;
  const [documentLine, integrityLine] = verdictLines(result);
  if (documentLine && integrityLine && v) {
    const d = v.document.verdict;
    lines.push(
      paint(
        d === 'NOT CONFORMANT' ? RED : d === 'INCONCLUSIVE' || v.document.warnings.length ? YELLOW : GREEN,
        printable(documentLine),
      ),
      paint(
        v.integrity.verdict === 'FAILED' ? RED : v.integrity.verdict === 'PASSED' ? GREEN : YELLOW,
        printable(integrityLine),
      ),
    );
  }
  const warned = (v?.document.warnings.length ?? 0) > 0;
  const colour =
    result.verdict === 'NOT CONFORMANT' ? RED : result.verdict === 'CONFORMANT' && !warned ? GREEN : YELLOW;
  lines.push(paint(BOLD, paint(colour, printable(verdictLine(result)))));
  return lines;
}

/** The console reporter, writing to `out` (stdout by default). */
export function consoleReporter(
  out: Writable & { isTTY?: boolean } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): KitReporter {
  const colour = useColour(out, env);
  const live = Boolean(out.isTTY);
  const paint: Paint = (code, text) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const seen: CheckResult[] = [];
  /** Results of the operations whose line is printed: the "done so far" of each line counts these only. */
  const reported: CheckResult[] = [];
  const inLine = new Set<CheckResult>();
  let liveShown = false;
  const clearLive = () => {
    if (liveShown) out.write('\r\u001b[K');
    liveShown = false;
  };
  const write = (line = '') => {
    clearLive();
    out.write(`${line}\n`);
  };
  return {
    name: 'console',
    onRunStart(start) {
      write(printable(`pagi-conform: checking ${start.target} (profile ${start.profile})`));
    },
    onCheckResult(result) {
      seen.push(result);
      if (!live) return;
      clearLive();
      out.write(`  … ${seen.length} checks: ${counts(seen, paint)}`);
      liveShown = true;
    },
    onOperationEnd(family: Family, operation: OperationKey) {
      // Suite files run side by side: results of operations still running arrive between this operation's. The
      // line counts the results of the lines printed, so its figure grows by exactly the checks the line shows.
      const mine = seen.filter((r) => r.family === family && r.operation === operation && !inLine.has(r));
      if (!mine.length) return;
      for (const r of mine) inLine.add(r);
      reported.push(...mine);
      const n = reported.length;
      const mark = mine.some((r) => r.status === 'failed') ? paint(RED, '✗') : paint(GREEN, '✓');
      write(
        `  ${mark} ${`${family}/${operation}`.padEnd(28)} ${counts(mine, paint)}  ${paint(DIM, `(${n} check${n === 1 ? '' : 's'} done so far: ${counts(reported, (_, t) => t)})`)}`,
      );
    },
    onRunEnd(result, end) {
      for (const line of summary(result, end, paint)) write(line);
    },
  };
}
