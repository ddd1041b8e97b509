/**
 * `profile discover --from PARTIAL`: what the vendor states about its gateway. The partial profile's stated points
 * seed the session's working profile (so its card fields and signature recipe make payments from the start); after
 * the probes every stated point is compared with what discovery decided: a point discovery decided otherwise is a
 * contradiction (kept with its evidence, the vendor's value written and marked), one it decided alike is confirmed,
 * one no probe decided is stated as the vendor's, not contradicted.
 */
import type { LoadedProfile } from '../core/profile/load.js';
import { ALWAYS_STATED, pointerOf } from '../core/profile/stated.js';
import { type Draft, leafPaths } from './draft.js';

/** A partial profile given with `--from`: the file and the loaded profile (its unstated points hold defaults). */
export interface FromProfile {
  file: string;
  loaded: Pick<LoadedProfile, 'profile' | 'unstated'>;
}

/** A stated point discovery decided otherwise. */
export interface Contradiction {
  /** JSON pointer of the point. */
  pointer: string;
  stated: unknown;
  answered: unknown;
  evidence: string;
}

function getAt(root: unknown, parts: readonly string[]): unknown {
  let node = root;
  for (const part of parts) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The points a partial profile states: its leaves but the labels and the points it leaves out. */
export function statedPoints(from: FromProfile): { path: string; value: unknown }[] {
  const unstated = new Set(from.loaded.unstated);
  return leafPaths(from.loaded.profile)
    .filter((p) => !ALWAYS_STATED.includes(p.split('.')[0]!) && !unstated.has(pointerOf(p.split('.'))))
    .map((p) => ({ path: p, value: getAt(from.loaded.profile, p.split('.')) }));
}

/** Whether a partial profile states every leaf at or below `path` (a point the probes then confirm, not search). */
export function fromStates(from: FromProfile | undefined, path: string): boolean {
  if (!from) return false;
  const below = (p: string) => p === path || p.startsWith(`${path}.`);
  const leaves = leafPaths(from.loaded.profile).filter(below);
  const unstated = new Set(from.loaded.unstated);
  return leaves.length > 0 && leaves.every((p) => !unstated.has(pointerOf(p.split('.'))));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Put every stated point of the partial into the draft, compared with what discovery decided at it or above it:
 * returns the contradictions (the vendor's value is written all the same, its comment naming the contradiction).
 */
export function applyFrom(draft: Draft, from: FromProfile): Contradiction[] {
  const contradictions: Contradiction[] = [];
  const decidedAt = (path: string) => {
    const parts = path.split('.');
    for (let n = parts.length; n > 0; n--) {
      const at = parts.slice(0, n).join('.');
      const p = draft.all().find((x) => x.path === at);
      if (p) return p.unknown ? undefined : { point: p, rest: parts.slice(n) };
    }
    return undefined;
  };
  for (const { path, value } of statedPoints(from)) {
    const decided = decidedAt(path);
    if (!decided) {
      draft.set(path, value, `from ${from.file} (not contradicted by any probe)`);
      continue;
    }
    const answered = getAt(decided.point.value, decided.rest);
    const evidence = decided.point.evidence || 'no evidence recorded';
    if (same(answered, value)) {
      draft.set(path, value, `from ${from.file}, confirmed by the probes: ${evidence}`);
      continue;
    }
    contradictions.push({ pointer: pointerOf(path.split('.')), stated: value, answered, evidence });
    draft.set(
      path,
      value,
      `from ${from.file}, CONTRADICTED: the gateway answered ${JSON.stringify(answered) ?? 'nothing'} (${evidence})`,
    );
  }
  return contradictions;
}

/** The line a contradiction is reported with. */
export function contradictionLine(c: Contradiction): string {
  const show = (v: unknown) => JSON.stringify(v) ?? 'nothing';
  return `contradiction: ${c.pointer}: the vendor's profile states ${show(c.stated)}, the gateway answered ${show(c.answered)} (evidence: ${c.evidence})`;
}
