/**
 * A merchant's pact checked against the interface, without any gateway: the pact checks (pact/checks.ts) run on
 * every interaction of their operation, and their outcomes go through the engine's outcome, roll-up and verdict as a
 * run's do, so `run`'s reporters write them. An interaction on a path the interface does not have belongs to no
 * operation: it is a warning, and it makes the pact NOT CONFORMANT.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { FailOn } from '../core/config/options.js';
import { checkContext, observedOnlyConfig } from '../core/check-context.js';
import { toCheckResult } from '../engine/outcome.js';
import { planTests } from '../engine/plan.js';
import { buildRunResult } from '../engine/results.js';
import { maskText, maskValue, type MaskRules } from '../core/mask.js';
import type { Check, CheckContext, CheckResult, Finding, OperationKey, RunResult } from '../core/model.js';
import { loadProfile, type Profile } from '../core/profile/load.js';
import type { KitReporter } from '../core/reporter.js';
import { kitSpec, type SpecModel } from '../core/spec/load.js';
import { covers } from '../core/spec/operations.js';
import { KIT_VERSION } from '../core/version.js';
import { didYouMean } from '../core/config/suggest.js';
import { PACT_CHECKS } from './checks.js';
import { PACT_FINDING_CODES } from './codes.js';
import { pactObservation, viewInteraction, type PactView } from './observation.js';
import type { PactFile } from './pact-file.js';

export { readPactFile } from './observation.js';

/** Options of a pact check. */
export interface CheckOptions {
  profile?: string;
  failOn?: FailOn;
  file?: string;
  commandLine?: string[];
  spec?: SpecModel;
}

/** What a pact check may read besides the interaction: the spec and the profile; a pact check sends nothing. */
function pactContext(spec: SpecModel, profile: Profile, rules: MaskRules): CheckContext {
  return checkContext({ spec, profile, config: observedOnlyConfig('pact:'), rules });
}

/** An interaction whose path the interface does not have: how the verdict names it, and why it fails it. */
interface OutsideInteraction {
  /** `<METHOD> <path> (<description>)`: the name the document verdict's failed list gives it. */
  name: string;
  /** The sentence of the verdict's reasons. */
  reason: string;
}

/**
 * An interaction whose path the interface does not have, with the closest path of the interface: it belongs to no
 * operation, so no check judges it, and the verdict fails on it at must (the interface's operations are its paths).
 */
function pathNotShown(spec: SpecModel, view: PactView): OutsideInteraction {
  const paths = [...new Set([...spec.operations.values()].map((o) => o.path))];
  const received = String(view.interaction.request?.path ?? '');
  const method = String(view.interaction.request?.method ?? 'POST').toUpperCase();
  const hint = didYouMean(received, paths);
  return {
    name: `${method} ${received} (${view.interaction.description})`,
    reason: `${view.interaction.description}: ${PACT_FINDING_CODES.PATH_NOT_SHOWN} (must): expected a path of the interface (${paths.join(', ')}) / received ${JSON.stringify(received)}${hint || '.'}`,
  };
}

/**
 * A pact finding may name a requirement its check does not list (the `x-requirement` of the schema constraint an
 * expectation contradicts, `PAGI-GEN-008`): the result traces to it too, so the roll-up counts the failure there.
 */
function tracedToFindings(result: CheckResult): CheckResult {
  const named = result.findings.flatMap((f) => f.requirementIds);
  return { ...result, requirementIds: [...new Set([...result.requirementIds, ...named])].sort() };
}

/** Check every interaction of a pact; the results in the shape of a run's. */
export function checkPact(pact: PactFile, options: CheckOptions = {}): RunResult {
  const started = new Date();
  const spec = options.spec ?? kitSpec();
  const loaded = loadProfile(options.profile ?? 'reference');
  const failOn = options.failOn ?? 'must';
  // A merchant's pact may hold card data: findings quote its values, so they are masked before they leave.
  const card = loaded.profile.fields.card;
  const rules: MaskRules = {
    fields: [card.number, card.securityCode],
    cards: [...loaded.profile.payments.testCards.approve, ...loaded.profile.payments.testCards.decline],
  };
  const ctx = pactContext(spec, loaded.profile, rules);
  const outcomes = new Map<string, { check: Check; operation: OperationKey; findings: Finding[]; ms: number }>();
  const warnings: string[] = [];
  const outside: OutsideInteraction[] = [];
  pact.interactions.forEach((interaction, index) => {
    const view = viewInteraction(spec, interaction, index);
    if (!view.operation) {
      const o = pathNotShown(spec, view);
      outside.push({ name: maskText(o.name, rules), reason: maskText(o.reason, rules) });
      return;
    }
    const observation = pactObservation({ ...view, operation: view.operation });
    for (const check of PACT_CHECKS) {
      if (!covers(spec, check.operations, view.operation)) continue;
      const key = `${view.operation}/${check.id}`;
      const entry = outcomes.get(key) ?? { check, operation: view.operation, findings: [], ms: 0 };
      outcomes.set(key, entry);
      const t0 = performance.now();
      const outcome = check.run(observation, ctx);
      entry.ms += performance.now() - t0;
      // The whole finding: its message, its expected and received values, its location.
      if (Array.isArray(outcome)) entry.findings.push(...outcome.map((f) => maskValue(f, rules)));
    }
  });
  const today = started.toISOString().slice(0, 10);
  const results: CheckResult[] = [...outcomes.values()].map((o) =>
    tracedToFindings(toCheckResult(spec, o.check, o.operation, o.findings, [], today, o.ms)),
  );
  const checked = new Set(outcomes.keys());
  const plan = planTests(spec, PACT_CHECKS, { only: [], skip: [] }).filter((t) => checked.has(t.key));
  const ended = new Date();
  const result = buildRunResult(spec, plan, results, {
    metadata: {
      kitVersion: KIT_VERSION,
      nodeVersion: process.version,
      commandLine: options.commandLine ?? ['pact check'],
      spec: { root: spec.root, digest: spec.digest },
      profile: { name: loaded.profile.name, version: loaded.profile.version, file: loaded.file, digest: loaded.digest },
      // The check's settings: the pact checked, the profile and the failing level.
      configDigest: createHash('sha256')
        .update(
          JSON.stringify({
            pact: createHash('sha256').update(JSON.stringify(pact)).digest('hex'),
            profile: loaded.digest,
            failOn,
          }),
        )
        .digest('hex'),
      target: { baseUrl: options.file ? `pact:${path.basename(options.file)}` : 'pact', embedded: false },
      seed: 0,
      failOn,
      selection: { only: [], skip: [] },
      startedAt: started.toISOString(),
      endedAt: ended.toISOString(),
      durationMs: ended.getTime() - started.getTime(),
    },
    exchanges: 0,
    warnings,
    failOn,
  });
  failOutside(result, outside);
  return result;
}

/**
 * An interaction outside every operation has no check result to fail: it fails the document verdict itself, at must
 * (whatever --fail-on says), listed among the failed at that level and named in the reasons.
 */
function failOutside(result: RunResult, outside: readonly OutsideInteraction[]): void {
  if (!outside.length) return;
  const reasons = outside.map((o) => o.reason);
  result.exitCode = 1;
  result.verdict = 'NOT CONFORMANT';
  result.verdictReasons.push(...reasons);
  if (result.verdicts) {
    const d = result.verdicts.document;
    d.verdict = 'NOT CONFORMANT';
    d.failed.unshift(...outside.map((o) => ({ check: o.name, level: 'must' as const })));
    d.reasons.push(...reasons);
  }
}

/** Every finding of a check result list, flattened. */
export function findingsOf(result: RunResult): Finding[] {
  return result.checks.flatMap((c) => c.findings);
}

/** Write a pact check's results with `run`'s reporters (the caller creates them). */
export async function reportCheck(
  result: RunResult,
  options: { out: string; reporters: readonly KitReporter[] },
): Promise<string[]> {
  const { reporters } = options;
  const files: string[] = [];
  for (const reporter of reporters) {
    const written = await reporter.onRunEnd?.(result, { outDir: options.out, exchanges: [], files });
    if (Array.isArray(written)) files.push(...written);
  }
  return files;
}
