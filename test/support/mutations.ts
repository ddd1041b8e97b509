/**
 * Faults nobody hand-picked: one field of one operation's answers changed at a time, through the fault-injecting proxy
 * (test/support/fault-proxy.ts). The targets are derived from a run through the identity proxy — every scalar field
 * the gateway's answers held, at the top level or in the items of a list — and each value is changed into another of
 * the same form (an amount by one cent, a number by one, the last letter or digit of a text to the next). Used by
 * `npm run bench:mutations` (every target) and test/engine/mutations.test.ts (a derived sample).
 */
import type { OperationKey } from '../../core/model.js';
import { runCli } from './cli.js';
import { type FaultProxy, type ProxyFault, startFaultProxy } from './fault-proxy.js';

/** One field of one operation's answers: top-level, or in every item of the list `list`. */
export interface MutationTarget {
  operation: OperationKey;
  list?: string;
  field: string;
}

/** What a run through the identity proxy saw: the targets, and the values each held (by target key). */
export interface ObservedAnswers {
  targets: MutationTarget[];
  /** Scalar values of each answer and request, by operation, in the order seen (items of lists flattened). */
  answers: { operation: OperationKey; request: Record<string, unknown>; body: Record<string, unknown> }[];
}

/** A target's key: `operation field` or `operation list[].field`. */
export function targetKey(t: MutationTarget): string {
  return `${t.operation} ${t.list ? `${t.list}[].` : ''}${t.field}`;
}

/** Fields whose change is a signature's or the answer's own framing, never a value about money or identity. */
const FRAMING = new Set(['encryption_data']);

const isScalar = (v: unknown): v is string | number => (typeof v === 'string' && v !== '') || typeof v === 'number';
const isItem = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Another value of the same form: an amount one cent more, a number one more, the last letter or digit moved on. */
export function mutate(value: string | number): string | number {
  if (typeof value === 'number') return value + 1;
  if (/^-?\d+\.\d{2}$/.test(value)) return ((Math.round(Number(value) * 100) + 1) / 100).toFixed(2);
  for (let i = value.length - 1; i >= 0; i--) {
    const c = value[i]!;
    const next = /[0-8a-yA-Y]/.test(c)
      ? String.fromCharCode(c.charCodeAt(0) + 1)
      : c === '9'
        ? '0'
        : c === 'z'
          ? 'a'
          : c === 'Z'
            ? 'A'
            : undefined;
    if (next) return `${value.slice(0, i)}${next}${value.slice(i + 1)}`;
  }
  return `${value}x`;
}

/** The scalar fields of a body: its own, and those of the items of each list it holds. */
function targetsOf(operation: OperationKey, body: Record<string, unknown>): MutationTarget[] {
  const out: MutationTarget[] = [];
  for (const [field, value] of Object.entries(body)) {
    if (FRAMING.has(field)) continue;
    if (isScalar(value)) out.push({ operation, field });
    else if (Array.isArray(value))
      for (const item of value.filter(isItem))
        for (const [f, v] of Object.entries(item)) if (isScalar(v)) out.push({ operation, list: field, field: f });
  }
  return out;
}

/** The fault changing one target in every answer that holds it. */
export function mutationFault(target: MutationTarget): ProxyFault {
  return {
    name: `mutate ${targetKey(target)}`,
    description: `Every answer of ${target.operation} holds another value of the same form in ${targetKey(target)}.`,
    answer(ctx, answer) {
      if (ctx.operation !== target.operation || !answer.body) return false;
      let changed = false;
      const holders = target.list
        ? (Array.isArray(answer.body[target.list]) ? (answer.body[target.list] as unknown[]) : []).filter(isItem)
        : [answer.body];
      for (const h of holders) {
        const v = h[target.field];
        if (!isScalar(v)) continue;
        h[target.field] = mutate(v);
        changed = true;
      }
      return changed;
    },
  };
}

/** A fault that changes nothing and records what the answers held. */
function recorder(seen: ObservedAnswers, keys: Set<string>): ProxyFault {
  return {
    name: 'record',
    description: 'Records every answer; changes nothing.',
    answer(ctx, answer) {
      if (!ctx.operation || !answer.body || answer.status !== 200) return false;
      seen.answers.push({ operation: ctx.operation, request: ctx.request, body: structuredClone(answer.body) });
      for (const t of targetsOf(ctx.operation, answer.body)) {
        const key = targetKey(t);
        if (keys.has(key)) continue;
        keys.add(key);
        seen.targets.push(t);
      }
      return false;
    },
  };
}

/** What one run through the proxy ended with. */
export interface MutationOutcome {
  key: string;
  exitCode: number;
  /** Answers the fault changed (0: the target never showed; the run proves nothing). */
  rewrites: number;
  integrity: string | undefined;
  /** `operation/checkId` of each failed check. */
  failed: string[];
}

/** A default run of the kit through the proxy with `fault` (none: the identity pass-through). */
export async function runThroughProxy(
  fault: ProxyFault | undefined,
): Promise<{ proxy: FaultProxy; exitCode: number; integrity?: string; failed: string[] }> {
  const proxy = await startFaultProxy(fault);
  try {
    const run = await runCli(['--target', proxy.url, '--reporter', 'json'], {
      PAGI_MERCHANT_ID: proxy.merchantId,
      PAGI_ACCOUNT_ID: proxy.accountId,
      PAGI_SECRET: proxy.secret,
    });
    const results = run.results();
    return {
      proxy,
      exitCode: run.code ?? -1,
      ...(results.verdicts ? { integrity: results.verdicts.integrity.verdict } : {}),
      failed: results.checks.filter((c) => c.status === 'failed').map((c) => `${c.operation}/${c.checkId}`),
    };
  } finally {
    await proxy.close();
  }
}

/** Run once through the identity proxy and derive the targets from what the answers held. */
export async function observeAnswers(): Promise<ObservedAnswers & { exitCode: number }> {
  const seen: ObservedAnswers = { targets: [], answers: [] };
  const run = await runThroughProxy(recorder(seen, new Set()));
  return { ...seen, exitCode: run.exitCode };
}

/** One target mutated: how the run ended. */
export async function runMutation(target: MutationTarget): Promise<MutationOutcome> {
  const run = await runThroughProxy(mutationFault(target));
  return {
    key: targetKey(target),
    exitCode: run.exitCode,
    rewrites: run.proxy.rewrites(),
    integrity: run.integrity,
    failed: run.failed,
  };
}
