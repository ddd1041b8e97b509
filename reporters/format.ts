/** What several reporters share: status order and labels, counts, the catalogue's statements, evidence lookup. */
import path from 'node:path';
import type { CheckResult, CheckStatus, Evidence, Family, Finding, OperationKey, RunResult } from '../src/model.js';
import { kitSpec, loadSpec } from '../src/spec/load.js';

/** Check statuses in report order. */
export const STATUSES: readonly CheckStatus[] = ['passed', 'failed', 'waived', 'skipped', 'not_applicable'];

/** A status as people read it (`not applicable`). */
export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
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
    operations: [...new Set(result.checks.map((c) => c.operation))],
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

/** Every exchange a finding rests on with its evidence, the location's first (one, or none, for most findings). */
export function findingEvidence(f: Finding): { exchangeId?: string; evidence: Evidence }[] {
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

/** One line per finding: `CODE /pointer: message`. */
export function findingLine(f: Finding): string {
  return `${f.code} ${f.location.pointer || '/'}: ${f.message}`;
}

/** The verdict and its reasons in one line. */
export function verdictLine(result: RunResult): string {
  return `verdict: ${result.verdict}${result.verdictReasons.length ? ` (${result.verdictReasons.join(' ')})` : ''}`;
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
