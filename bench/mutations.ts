/**
 * `npm run bench:mutations`: faults nobody hand-picked. A run through the identity proxy derives every scalar field
 * the reference gateway's answers hold (top level and list items, test/support/mutations.ts); then, one at a time,
 * each is changed into another value of the same form in every answer of its operation and a default run goes through
 * the proxy. Written to bench/results/mutations.json: per target the exit code, the integrity verdict and the checks
 * that failed; totals: caught (exit 1), caught through the integrity verdict, missed (exit 0), other. A missed target
 * is not by itself a defect (a field the kit cannot know the truth of, such as a free note, may change unseen): the
 * list is what to look at. Options: `--limit N` (the first N targets), `--jobs N` (runs at once, default 2).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MutationOutcome, observeAnswers, runMutation, targetKey } from '../test/support/mutations.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULT_FILE = path.join(HERE, 'results', 'mutations.json');

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadAverage = os.loadavg().map((l) => Number(l.toFixed(2)));
  const seen = await observeAnswers();
  if (seen.exitCode !== 0) throw new Error(`the identity pass-through ended with exit ${seen.exitCode}, not 0`);
  const targets = seen.targets.slice(0, flag('--limit', seen.targets.length));
  const jobs = flag('--jobs', 2);
  const outcomes: MutationOutcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      while (next < targets.length) {
        const t = targets[next++]!;
        const o = await runMutation(t);
        outcomes.push(o);
        console.log(
          `[${outcomes.length}/${targets.length}] ${o.key}: exit ${o.exitCode}, integrity ${o.integrity ?? '-'}${o.rewrites ? '' : ' (never changed)'}`,
        );
      }
    }),
  );
  const order = new Map(targets.map((t, i) => [targetKey(t), i]));
  outcomes.sort((a, b) => order.get(a.key)! - order.get(b.key)!);
  const applied = outcomes.filter((o) => o.rewrites > 0);
  const totals = {
    targets: targets.length,
    applied: applied.length,
    caught: applied.filter((o) => o.exitCode === 1).length,
    caughtByIntegrity: applied.filter((o) => o.integrity === 'FAILED').length,
    missed: applied.filter((o) => o.exitCode === 0).length,
    other: applied.filter((o) => o.exitCode !== 0 && o.exitCode !== 1).length,
  };
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage,
    wallSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    totals,
    missed: applied.filter((o) => o.exitCode === 0).map((o) => o.key),
    outcomes,
  };
  fs.writeFileSync(RESULT_FILE, `${JSON.stringify(result, null, 1)}\n`);
  console.log(
    `targets ${totals.targets} (changed in a run: ${totals.applied}); caught ${totals.caught}, through the integrity verdict ${totals.caughtByIntegrity}; missed ${totals.missed}; other ${totals.other}; written ${path.relative(process.cwd(), RESULT_FILE)}`,
  );
}

await main();
