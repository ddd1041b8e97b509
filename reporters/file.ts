/** Reporters that write one file into the run's output folder when the run ends; `writeReportFile` is their one write path. */
import fs from 'node:fs';
import path from 'node:path';
import { maskOutgoing } from '../core/mask.js';
import type { RunResult } from '../core/model.js';
import type { KitReporter, RunEnd } from '../core/reporter.js';

/** A reporter writing one file of the report set (`fileName`, in the output folder). */
export interface FileReporter extends KitReporter {
  fileName: string;
}

/**
 * A reporter named `name` writing `fileName` in the output folder, its text made by `render`. `seal`, when given,
 * finishes the text after it was masked (the HTML report's digests and signature): what it seals is exactly what is
 * written, so the masking can never edit a sealed page.
 */
export function fileReporter(
  name: string,
  fileName: string,
  render: (result: RunResult, end: RunEnd) => string,
  seal?: (masked: string) => string,
): FileReporter {
  return {
    name,
    fileName,
    onRunEnd(result, end) {
      fs.mkdirSync(end.outDir, { recursive: true });
      const file = path.resolve(end.outDir, fileName);
      writeReportFile(file, render(result, end), seal);
      return [file];
    },
  };
}

/**
 * Write a report file: its text passes through `maskOutgoing` (no secret, card number or security code leaves), then
 * through `seal` (which adds only digests, a signature and a public key).
 */
function writeReportFile(file: string, text: string, seal?: (masked: string) => string): void {
  const masked = maskOutgoing(text);
  fs.writeFileSync(file, seal ? seal(masked) : masked);
}

/**
 * The reporter running first: it removes from the output folder every file of the report set (`files`, what any
 * kit reporter writes) before this run's reporters write theirs, so no report of an earlier run, or of another
 * command writing to the same folder, is left beside this run's.
 */
export function staleReportRemover(files: readonly string[]): KitReporter {
  return {
    name: 'stale-reports',
    onRunEnd(_result, end) {
      for (const file of files) fs.rmSync(path.resolve(end.outDir, file), { force: true });
    },
  };
}
