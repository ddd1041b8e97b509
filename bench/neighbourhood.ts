/**
 * The neighbourhood proof (issue #34, point 7): for each personality under spec/profiles, the neighbours
 * test/support/neighbourhood.ts generates (one choice changed at a time, derived from the profile format's schema),
 * each served by the reference gateway, discovered in this process two at a time, every value the draft states
 * compared with the neighbour's truth, a run with the draft (its failed checks counted; a failed run is repeated with
 * the truth, and a neighbour whose truth fails too is one the gateway cannot serve: left out of the figures and
 * listed), and the same discovery with `--from` holding only the card fields and the signature recipe.
 * Writes bench/results/neighbourhood.json (after every neighbour, `complete: false` until the last): totals, the
 * share of stated points with and without `--from` (and the leaves left out, by how often), every wrong stated value (neighbour, leaf, stated, truth), the
 * failed checks, the load average, the date and node. Goals: 0 wrong stated values, 0 failed checks, ≥ 90 % of the
 * points stated (≥ 97 % with `--from`).
 * `npm run bench:neighbourhood` (`--seed N`, `--per N` neighbours per personality, `--only TEXT` neighbours whose id
 * holds TEXT, `--sample N` the first N of each personality, `--skip N` all but the first N of each personality,
 * `--no-from`; a run of a part writes nothing but to `--out FILE`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KIT_ROOT } from '../core/spec/paths.js';
import { kindOf, type Neighbour, neighbourhood } from '../test/support/neighbourhood.js';
import { type DraftFigures, type NeighbourProof, pool, proveNeighbour } from '../test/support/neighbourhood-proof.js';

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return (
    process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ??
    (at > 0 ? process.argv[at + 1] : undefined)
  );
}
const seed = Number(arg('seed') ?? 34);
const per = Number(arg('per') ?? 31);
const only = arg('only');
const sample = arg('sample') ? Number(arg('sample')) : undefined;
const skip = arg('skip') ? Number(arg('skip')) : undefined;
const withFrom = !process.argv.includes('--no-from');
const partial = Boolean(only || sample || skip) && !arg('out');
const RESULT_FILE = path.resolve(arg('out') ?? path.join(KIT_ROOT, 'bench', 'results', 'neighbourhood.json'));

const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));
const pct = (a: number, b: number) => (b ? Number(((100 * a) / b).toFixed(1)) : 0);

let chosen: Neighbour[] = neighbourhood(seed, per);
if (only) chosen = chosen.filter((n) => n.id.includes(only));
if (sample) chosen = chosen.filter((n) => Number(n.id.split('~').at(-1)) <= sample);
if (skip) chosen = chosen.filter((n) => Number(n.id.split('~').at(-1)) > skip);

function share(proofs: NeighbourProof[], pick: (p: NeighbourProof) => DraftFigures | undefined) {
  const figures = proofs.map(pick).filter((f): f is DraftFigures => Boolean(f));
  const leaves = figures.reduce((n, f) => n + f.leaves, 0);
  const stated = figures.reduce((n, f) => n + f.stated, 0);
  // Which of the truths' leaves the drafts leave out, and how often: where the share is lost.
  const left = new Map<string, number>();
  for (const f of figures) for (const leaf of f.unstated) left.set(leaf, (left.get(leaf) ?? 0) + 1);
  const moot = figures.reduce((n, f) => n + f.moot, 0);
  const mootStated = figures.reduce((n, f) => n + f.mootStated, 0);
  return {
    neighbours: figures.length,
    leaves,
    stated,
    statedPercent: pct(stated, leaves),
    // Over the leaves the gateway serving the truth reads (test/support/moot.ts): what any probe could decide.
    mootLeaves: moot,
    statedOfReadPercent: pct(stated - mootStated, leaves - moot),
    lowestPercent: Math.min(...figures.map((f) => pct(f.stated, f.leaves))),
    wrongValues: figures.reduce((n, f) => n + f.wrong.length, 0),
    extraValues: figures.reduce((n, f) => n + f.extra.length, 0),
    invalidDrafts: figures.filter((f) => f.problems.length).length,
    contradictions: figures.reduce((n, f) => n + f.contradictions, 0),
    meanSeconds: Number((figures.reduce((n, f) => n + f.seconds, 0) / (figures.length || 1)).toFixed(1)),
    maxSeconds: Math.max(0, ...figures.map((f) => f.seconds)),
    unstatedLeaves: Object.fromEntries([...left].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
  };
}

/** Every wrong stated value, by the leaf it is at: which neighbour (and its change), stated, truth. */
function wrongByLeaf(proofs: NeighbourProof[], pick: (p: NeighbourProof) => DraftFigures | undefined) {
  const out: Record<string, { neighbour: string; change: string; stated: unknown; truth: unknown }[]> = {};
  for (const p of proofs)
    for (const w of pick(p)?.wrong ?? [])
      (out[w.leaf] ??= []).push({ neighbour: p.id, change: p.change, stated: w.stated, truth: w.truth });
  return out;
}

function report(proofs: NeighbourProof[], started: number, loadBefore: number[]) {
  const servable = proofs.filter((p) => !p.error && !p.control?.length);
  const points = new Set(servable.map((p) => p.point));
  const kinds: Record<string, number> = {};
  for (const p of servable) {
    const k = kindOf(p) ?? 'other';
    kinds[k] = (kinds[k] ?? 0) + 1;
  }
  const failedRuns = servable.filter((p) => p.failed.length);
  return {
    complete: proofs.length === chosen.length,
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverageBefore: loadBefore,
    loadAverage: load(),
    wallSeconds: Math.round((performance.now() - started) / 1000),
    seed,
    perPersonality: per,
    goals: { wrongValues: 0, failedChecks: 0, statedPercent: 90, statedPercentWithFrom: 97 },
    totals: {
      generated: chosen.length,
      proved: proofs.length,
      neighbours: servable.length,
      points: points.size,
      kinds,
      notServable: proofs
        .filter((p) => p.control?.length)
        .map((p) => ({ neighbour: p.id, change: p.change, control: p.control })),
      errors: proofs.filter((p) => p.error).map((p) => ({ neighbour: p.id, error: p.error })),
      failedChecks: failedRuns.reduce((n, p) => n + p.failed.length, 0),
      runsWithFailedChecks: failedRuns.length,
      runsStopped: servable
        .filter((p) => p.runError)
        .map((p) => ({ neighbour: p.id, change: p.change, why: p.runError })),
    },
    discovery: share(servable, (p) => p.discovery),
    withFrom: withFrom ? share(servable, (p) => p.fromDiscovery) : undefined,
    wrongValues: wrongByLeaf(servable, (p) => p.discovery),
    wrongValuesWithFrom: withFrom ? wrongByLeaf(servable, (p) => p.fromDiscovery) : undefined,
    failedChecks: Object.fromEntries(failedRuns.map((p) => [p.id, { change: p.change, failed: p.failed }])),
    neighbours: proofs.map((p) => ({
      id: p.id,
      point: p.point,
      rule: p.rule,
      change: p.change,
      stated: `${p.discovery.stated}/${p.discovery.leaves}`,
      unstated: p.discovery.unstated,
      unstatedWithFrom: p.fromDiscovery?.unstated,
      statedWithFrom: p.fromDiscovery ? `${p.fromDiscovery.stated}/${p.fromDiscovery.leaves}` : undefined,
      wrong: p.discovery.wrong.length,
      wrongWithFrom: p.fromDiscovery?.wrong.length,
      failedChecks: p.failed.length,
      runStopped: p.runError ? true : undefined,
      seconds: p.discovery.seconds,
      secondsWithFrom: p.fromDiscovery?.seconds,
    })),
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-neighbourhood-'));
const started = performance.now();
const loadBefore = load();
const done: NeighbourProof[] = [];
console.log(
  `${chosen.length} neighbours over ${new Set(chosen.map((n) => n.point)).size} points (seed ${seed}), 2 at a time; load ${loadBefore.join(' ')}`,
);
try {
  await pool(chosen, 2, async (nb) => {
    const p = await proveNeighbour(nb, dir, withFrom);
    done.push(p);
    const f = p.fromDiscovery;
    console.log(
      `${String(done.length).padStart(3)}/${chosen.length} ${p.id}  ${p.change.slice(0, 60)}  stated ${p.discovery.stated}/${p.discovery.leaves}` +
        `${f ? ` (--from ${f.stated})` : ''}  moot ${p.discovery.moot}  wrong ${p.discovery.wrong.length}${f ? `/${f.wrong.length}` : ''}  failed ${p.failed.length}` +
        `${p.runError ? ' RUN STOPPED' : ''}${p.control?.length ? ` NOT SERVABLE (${p.control.length} with the truth)` : ''}${p.error ? `  ERROR ${p.error.split('\n')[0]}` : ''}` +
        `  ${p.discovery.seconds}${f ? `+${f.seconds}` : ''} s`,
    );
    for (const w of [...p.discovery.wrong, ...(f?.wrong ?? [])])
      console.log(`      wrong ${w.leaf}: stated ${JSON.stringify(w.stated)}, truth ${JSON.stringify(w.truth)}`);
    for (const c of p.failed.slice(0, 5)) console.log(`      failed ${c}`);
    if (p.runError) console.log(`      run stopped: ${p.runError.split('\n').slice(-2).join(' ')}`);
    if (!partial) fs.writeFileSync(RESULT_FILE, `${JSON.stringify(report(done, started, loadBefore), null, 2)}\n`);
  });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
const r = report(done, started, loadBefore);
if (!partial) fs.writeFileSync(RESULT_FILE, `${JSON.stringify(r, null, 2)}\n`);
console.log(
  `${r.totals.neighbours} neighbours (${r.totals.notServable.length} not servable, ${r.totals.errors.length} errors) over ${r.totals.points} points; ` +
    `wrong stated values ${r.discovery.wrongValues} (with --from ${r.withFrom?.wrongValues ?? '-'}); ` +
    `stated ${r.discovery.statedPercent} % (with --from ${r.withFrom?.statedPercent ?? '-'} %), of the leaves not moot ${r.discovery.statedOfReadPercent} % (with --from ${r.withFrom?.statedOfReadPercent ?? '-'} %); ` +
    `failed checks ${r.totals.failedChecks} in ${r.totals.runsWithFailedChecks} runs, ${r.totals.runsStopped.length} runs stopped; ${r.wallSeconds} s; load ${r.loadAverage.join(' ')}` +
    `${partial ? '' : `; written to ${path.relative(KIT_ROOT, RESULT_FILE)}`}`,
);
