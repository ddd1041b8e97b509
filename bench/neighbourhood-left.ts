/**
 * What the neighbourhood's drafts leave out that an answer could decide: bench/results/neighbourhood.json (as
 * `npm run bench:neighbourhood` wrote it) read again, each neighbour's truth generated again from its seed
 * (test/support/neighbourhood.ts), and every leaf a draft left out counted unless it is moot for that truth
 * (test/support/moot.ts). Prints the leaves left out with `--from` (or without: `--no-from`) by how often, an
 * operation's name in a path read as `<op>`. Writes nothing.
 * `node bin/run-ts.js bench/neighbourhood-left.ts [--no-from] [--file FILE]`
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadSpec } from '../core/spec/load.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { mootRule } from '../test/support/moot.js';
import { neighbourhood } from '../test/support/neighbourhood.js';

const at = process.argv.indexOf('--file');
const file = at > 0 ? process.argv[at + 1]! : path.join(KIT_ROOT, 'bench', 'results', 'neighbourhood.json');
const withFrom = !process.argv.includes('--no-from');
const result = JSON.parse(fs.readFileSync(file, 'utf8')) as {
  seed: number;
  perPersonality: number;
  neighbours: { id: string; unstated?: string[]; unstatedWithFrom?: string[] }[];
  totals: { notServable: { neighbour: string }[] };
};
// A neighbour the reference gateway cannot serve conformantly is out of the figures, as in the bench's.
const outOfFigures = new Set(result.totals.notServable.map((x) => x.neighbour));
const truths = new Map(neighbourhood(result.seed, result.perPersonality).map((n) => [n.id, n.profile]));
// An operation's name in a leaf's path (the spec's operations), so that one row counts a point of every operation.
const OPERATION = new RegExp(`\\.(${[...loadSpec().operations.keys()].join('|')})(?=\\.|$)`);
/\.(authoriseApm|authoriseDirect|cancel|capture|checkout|payout|refund|retrievalRefund|retrievalTrans|review)(?=\.|$)/;
const counts = new Map<string, number>();
let moot = 0;
let left = 0;
for (const n of result.neighbours.filter((x) => !outOfFigures.has(x.id))) {
  const truth = truths.get(n.id);
  if (!truth)
    throw new Error(`${n.id} is not a neighbour of seed ${result.seed}: the file was written by another generator`);
  for (const leaf of (withFrom ? n.unstatedWithFrom : n.unstated) ?? []) {
    if (mootRule(truth, leaf)) {
      moot++;
      continue;
    }
    left++;
    const key = leaf.replace(OPERATION, '.<op>');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}
console.log(
  `${path.relative(process.cwd(), file)}, ${withFrom ? 'with' : 'without'} --from: ${left + moot} leaves left out, ${moot} of them moot, ${left} an answer could decide:`,
);
for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
  console.log(`${String(n).padStart(6)}  ${key}`);
