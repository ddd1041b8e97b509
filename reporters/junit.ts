/**
 * JUnit XML (`<out>/junit.xml`) as CI systems read it: one `<testsuite>` per family, one `<testcase>` per check
 * result (classname `family.operation`, name the check id) with its requirement ids, severity and status in its
 * `<system-out>`. The run's properties carry the overall verdict, the document and integrity verdicts and each broken
 * invariant in the catalogue's words (`integrity.PAGI-INV-…`). The document is valid against Jenkins' JUnit schema.
 * A failed check has a `<failure>` whose body holds its findings and evidence; skipped, not applicable and waived
 * checks are `<skipped>` with the reason. Built with fast-xml-parser's XMLBuilder (it escapes); control characters
 * from the target are shown escaped, as XML 1.0 cannot carry them.
 */
import { XMLBuilder } from 'fast-xml-parser';
import type { CheckResult, RunResult, Severity } from '../core/model.js';
import {
  countByStatus,
  evidenceText,
  failedRequirements,
  findingReplay,
  levelLabel,
  printable,
  problems,
  reproduceCommand,
  resultsFileOf,
  uncheckedRequirements,
  verdictHeadline,
  notJudgedLine,
} from './format.js';
import { sidePrefix } from '../core/run-result.js';
import { fileReporter } from './file.js';
import type { KitReporter } from '../core/reporter.js';

type Node = Record<string, unknown>;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  suppressEmptyNode: true,
  processEntities: true,
});

/** Attribute text: one line, control characters escaped. */
function attr(text: string): string {
  return printable(text).replace(/\s+/g, ' ').trim();
}

function properties(pairs: [string, string][]): Node {
  return { property: pairs.map(([name, value]) => ({ '@_name': name, '@_value': attr(value) })) };
}

/**
 * The findings of a result with their evidence, as the body of a failure: several steps in the order sent, each after
 * its comment (the failing one marked), then the command replaying them.
 */
function findingsText(result: CheckResult, resultsFile: string): string {
  return result.findings
    .map((f) => {
      const head = `${sidePrefix(f)}[${f.severity}] ${f.code} ${f.title} at ${f.location.operation} ${f.location.pointer || '/'} (${f.requirementIds.join(', ')})${f.location.exchangeId ? ` exchange ${f.location.exchangeId}` : ''}`;
      const steps = findingReplay(f);
      const replay =
        steps.length > 1 ? [`replay the steps with fresh identifiers: ${reproduceCommand(result, resultsFile)}`] : [];
      return [
        head,
        `  ${f.message}`,
        ...steps.map((x) => `${x.comment ? `${x.comment}\n` : ''}${evidenceText(x.evidence)}`),
        ...replay,
      ].join('\n');
    })
    .join('\n\n');
}

/** The one-line failure message: which check failed where, for which requirements (those its findings name), and the first finding. */
export function failureMessage(result: CheckResult, level?: Severity): string {
  const first = problems(result)[0];
  return `${result.checkId} failed${level ? ` at ${level}` : ''} on ${result.operation} (${failedRequirements(result).join(', ')})${first ? `: ${first.code} ${first.location.pointer || '/'}: ${first.message}` : ''}`;
}

/**
 * A check result as a `<testcase>`. Jenkins' strict JUnit schema allows no `<properties>` in a testcase and only text
 * in `<skipped>`: the requirement ids, severity, the level a failed check fails at (`fails at`, the verdicts' level),
 * status, operation and family are `name: value` lines of its `<system-out>` (after the findings of a waived check),
 * and the skip reason is the text of `<skipped>`.
 */
function testcase(run: RunResult, result: CheckResult, resultsFile: string): Node {
  const failed = result.status === 'failed' || result.status === 'waived';
  const level = levelLabel(run, result);
  const facts = [
    `requirements: ${result.requirementIds.join(' ')}`,
    `severity: ${result.severity}`,
    ...(failed ? [`fails at: ${level}`] : []),
    `status: ${result.status}`,
    `operation: ${result.operation}`,
    `family: ${result.family}`,
  ].join('\n');
  const node: Node = {
    '@_classname': `${result.family}.${result.operation}`,
    '@_name': result.checkId,
    '@_time': (result.durationMs / 1000).toFixed(3),
  };
  if (result.status === 'failed') {
    node.failure = {
      '@_message': attr(failureMessage(result, level)),
      '@_type': problems(result)[0]?.code ?? 'FAILED',
      '#text': printable(findingsText(result, resultsFile)),
    };
  } else if (result.status !== 'passed') {
    node.skipped = attr(
      `${result.status === 'waived' ? 'waived' : result.status.replace('_', ' ')}: ${result.reason ?? ''}`,
    );
  }
  node['system-out'] =
    result.status === 'waived'
      ? `${printable(findingsText(result, resultsFile))}\n\n${printable(facts)}`
      : printable(facts);
  return node;
}

/** The JUnit document of a run. */
export function junitXml(result: RunResult, resultsFile = 'results.json'): string {
  const { metadata: m } = result;
  const runProperties = properties([
    ['verdict', verdictHeadline(result)],
    ...(result.verdicts
      ? ([
          ['verdict.document', result.verdicts.document.verdict],
          ['verdict.integrity', result.verdicts.integrity.verdict],
          ...result.verdicts.integrity.broken.map((b): [string, string] => [`integrity.${b.id}`, b.breach]),
        ] as [string, string][])
      : []),
    ['target', m.target.baseUrl],
    ['profile', `${m.profile.name} (version ${m.profile.version}) sha256:${m.profile.digest}`],
    ['kitVersion', m.kitVersion],
    ['specDigest', `sha256:${m.spec.digest}`],
    ['seed', String(m.seed)],
    ...(notJudgedLine(result) ? [['notJudged', notJudgedLine(result)!] as [string, string]] : []),
    ['coverage', `${result.coverage.checked}/${result.coverage.testable} requirements checked`],
    ...uncheckedRequirements(result).map((u): [string, string] => [`unchecked.${u.id}`, `${u.level}: ${u.why}`]),
  ]);
  const families = [...new Set(result.checks.map((c) => c.family))];
  const suites = families.map((family) => {
    const checks = result.checks.filter((c) => c.family === family);
    const c = countByStatus(checks);
    return {
      '@_name': family,
      '@_tests': checks.length,
      '@_failures': c.failed,
      '@_errors': 0,
      '@_skipped': c.skipped + c.not_applicable + c.waived,
      '@_time': (checks.reduce((t, r) => t + r.durationMs, 0) / 1000).toFixed(3),
      '@_timestamp': m.startedAt,
      properties: runProperties,
      testcase: checks.map((c) => testcase(result, c, resultsFile)),
    };
  });
  const all = countByStatus(result.checks);
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      '@_name': `pagi-conformance: ${verdictHeadline(result)}`,
      '@_tests': result.checks.length,
      '@_failures': all.failed,
      '@_errors': 0,
      '@_time': (m.durationMs / 1000).toFixed(3),
      testsuite: suites,
    },
  };
  return builder.build(doc) as string;
}

/** The junit.xml reporter. */
export function junitReporter(): KitReporter {
  return fileReporter('junit', 'junit.xml', (result, end) => junitXml(result, resultsFileOf(end)));
}
