/**
 * Markdown summary (`<out>/summary.md`) for a CI step summary (`cat reports/summary.md >> $GITHUB_STEP_SUMMARY`)
 * or a pull-request comment: the overall verdict, the document-conformance and payment-integrity verdicts (broken
 * invariants named in the catalogue's words), run facts, checks per family and status, the failed checks most
 * serious first with their requirement ids and first finding, and their evidence in collapsed blocks. Text from the target is escaped (no
 * HTML or Markdown of its own gets through); the file stays under a pull-request comment's size limit.
 */
import type { CheckResult, Evidence, RunResult } from '../core/model.js';
import {
  STATUSES,
  checkName,
  countByStatus,
  failedRequirements,
  findingLine,
  levelLabel,
  printable,
  problems,
  replayOf,
  reproduceCommand,
  resultsFileOf,
  failedBySeriousness,
  statusLabel,
  uncheckedLines,
  verdictHeadline,
  verdictLines,
  notJudgedLine,
} from './format.js';
import { fileReporter } from './file.js';
import type { KitReporter } from '../core/reporter.js';

/** Most characters of the summary (GitHub's limit for a comment is 65 536). */
const MARKDOWN_LIMIT = 60_000;

/** Most characters of a curl line and of a response shown per failed check, and of a finding in the table. */
const CURL_CHARS = 4_000;
const RESPONSE_CHARS = 1_500;
const FINDING_CHARS = 300;

/** Most failed checks listed in the table. */
const FAILED_ROWS = 100;

const VERDICT_MARK: Record<RunResult['verdict'], string> = {
  CONFORMANT: '✅',
  'NOT CONFORMANT': '❌',
  INCONCLUSIVE: '⚠️',
};

/** Text for a table cell or a paragraph: HTML and Markdown syntax escaped, one line. */
function mdText(text: string): string {
  return printable(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+!|~]/g, (c) => `\\${c}`)
    .replace(/\s+/g, ' ')
    .trim();
}

/** A fenced code block whose fence is longer than any backtick run in the text. */
export function mdCode(text: string, language = ''): string {
  const longest = Math.max(2, ...(printable(text).match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${printable(text)}\n${fence}`;
}

function cut(text: string, max: number, more = '\n… (%d more characters in report.html)'): string {
  return text.length > max ? `${text.slice(0, max)}${more.replace('%d', String(text.length - max))}` : text;
}

function statusRows(result: RunResult): string[] {
  const rows = [
    `| family | ${STATUSES.map(statusLabel).join(' | ')} |`,
    `|---|${STATUSES.map(() => '---:').join('|')}|`,
  ];
  for (const family of new Set(result.checks.map((c) => c.family))) {
    const c = countByStatus(result.checks.filter((r) => r.family === family));
    rows.push(`| ${family} | ${STATUSES.map((s) => c[s]).join(' | ')} |`);
  }
  const t = result.totals.byStatus;
  rows.push(`| **total** | ${STATUSES.map((s) => `**${t[s]}**`).join(' | ')} |`);
  return rows;
}

function failedRow(result: RunResult, r: CheckResult): string {
  const first = problems(r)[0];
  return `| \`${checkName(r)}\` | ${failedRequirements(r).map(mdText).join(' ')} | ${levelLabel(result, r)} | ${first ? mdText(cut(findingLine(first), FINDING_CHARS, ' …')) : ''} |`;
}

function responseText(evidence: Evidence): string {
  if (!evidence.response) return 'no response';
  const { status, headers, bodyExcerpt } = evidence.response;
  return [`HTTP ${status}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', bodyExcerpt].join('\n');
}

function evidenceBlock(r: CheckResult, resultsFile: string): string {
  const steps = replayOf(r);
  const findings = problems(r).map((f) => `- ${mdText(`[${f.severity}] ${findingLine(f)}`)}`);
  // Several steps: in the order sent, each after its comment (the failing one marked), then the command replaying them.
  const body = steps.length
    ? [
        ...steps.map(({ evidence: e, comment }) =>
          [
            mdCode(cut(comment ? `${comment}\n${e.curl}` : e.curl, CURL_CHARS), 'sh'),
            mdCode(cut(responseText(e), RESPONSE_CHARS)),
          ].join('\n\n'),
        ),
        ...(steps.length > 1
          ? [`Replay the steps with fresh identifiers: ${mdCode(reproduceCommand(r, resultsFile), 'sh')}`]
          : []),
      ].join('\n\n')
    : '_no exchange recorded_';
  return [
    '<details>',
    `<summary>${mdText(checkName(r))}: ${mdText(r.requirementIds.join(', '))}</summary>`,
    '',
    ...findings,
    '',
    body,
    '',
    '</details>',
  ].join('\n');
}

/** The Markdown summary of a run. */
export function markdownSummary(result: RunResult, resultsFile = 'results.json'): string {
  const m = result.metadata;
  const head = [
    `## ${VERDICT_MARK[result.verdict]} PAGI conformance: ${mdText(verdictHeadline(result))}`,
    '',
    ...verdictLines(result).map((l) => `- ${mdText(l)}`),
    ...(result.verdicts?.integrity.broken ?? []).map(
      (b) =>
        `  - **${mdText(b.breach)}** (${mdText(b.id)}, ${mdText(b.family)}): ${b.checks.map((c) => `\`${c}\``).join(', ')}`,
    ),
    ...(result.verdicts ? [''] : []),
    ...result.verdictReasons.map((r) => `> ${mdText(r)}`),
    ...(result.verdictReasons.length ? [''] : []),
    '| | |',
    '|---|---|',
    `| target | ${mdText(m.target.baseUrl)}${m.target.embedded ? ' (embedded reference gateway)' : ''} |`,
    `| profile | ${mdText(`${m.profile.name} (version ${m.profile.version})`)} (sha256 \`${m.profile.digest.slice(0, 12)}\`) |`,
    `| kit | ${mdText(m.kitVersion)}, spec sha256 \`${m.spec.digest.slice(0, 12)}\` |`,
    `| date | ${mdText(m.startedAt)} (${(m.durationMs / 1000).toFixed(1)} s${m.shards ? `, ${m.shards.length} shards` : ''}) |`,
    `| coverage | ${result.coverage.checked} / ${result.coverage.testable} testable requirements checked${result.coverage.unchecked.length ? `; not checked: ${uncheckedLines(result).map(mdText).join('; ')}` : ''} |`,
    `| checks | ${result.totals.checks} (${result.totals.exchanges} exchanges) |`,
    ...(notJudgedLine(result) ? [`| not judged | ${notJudgedLine(result)} |`] : []),
    '',
    ...statusRows(result),
  ];
  // Most serious first: a broken invariant, then must, expected, profile.
  const failed = failedBySeriousness(result);
  const lines = [...head];
  if (failed.length) {
    lines.push(
      '',
      `### Failed checks (${failed.length})`,
      '',
      '| check | requirements | level failed at | first finding |',
      '|---|---|---|---|',
      ...failed.slice(0, FAILED_ROWS).map((r) => failedRow(result, r)),
    );
    if (failed.length > FAILED_ROWS)
      lines.push('', `_… and ${failed.length - FAILED_ROWS} more failed checks: see report.html._`);
  }
  const waived = result.checks.filter((c) => c.status === 'waived');
  if (waived.length)
    lines.push(
      '',
      `### Waived checks (${waived.length})`,
      '',
      '| check | reason |',
      '|---|---|',
      ...waived.map((r) => `| \`${checkName(r)}\` | ${mdText(r.reason ?? '')} |`),
    );
  for (const w of result.warnings) lines.push('', `> ⚠️ ${mdText(w)}`);
  let text = lines.join('\n');
  if (failed.length) text += '\n\n### Evidence\n';
  for (const [i, r] of failed.entries()) {
    const block = `\n${evidenceBlock(r, resultsFile)}\n`;
    if (text.length + block.length > MARKDOWN_LIMIT) {
      text += `\n_Evidence of ${failed.length - i} more failed check(s) is in report.html and results.json._\n`;
      break;
    }
    text += block;
  }
  return `${text}\n`;
}

/** The summary.md reporter. */
export function markdownReporter(): KitReporter {
  return fileReporter('markdown', 'summary.md', (result, end) => markdownSummary(result, resultsFileOf(end)));
}
