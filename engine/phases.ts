/**
 * The phases of a run as they happen, for the start-up benchmark (bench/run.ts): with `PAGI_PHASES` naming a file,
 * each thread of the run (the CLI's, the suite worker's) appends one line per phase reached, `<name> <epoch ms>`.
 * Without it nothing is written or kept. Never read by the run itself.
 */
import fs from 'node:fs';

const FILE = process.env.PAGI_PHASES;
const reached = new Set<string>();

/** The run reached `name` (the first time only: a phase marks when something first happened). */
export function phase(name: string): void {
  if (!FILE || reached.has(name)) return;
  reached.add(name);
  fs.appendFileSync(FILE, `${name} ${(performance.timeOrigin + performance.now()).toFixed(1)}\n`);
}
