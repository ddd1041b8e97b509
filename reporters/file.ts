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

/** A reporter named `name` writing `fileName` in the output folder, its text made by `render`. */
export function fileReporter(
  name: string,
  fileName: string,
  render: (result: RunResult, end: RunEnd) => string,
): FileReporter {
  return {
    name,
    fileName,
    onRunEnd(result, end) {
      fs.mkdirSync(end.outDir, { recursive: true });
      const file = path.resolve(end.outDir, fileName);
      writeReportFile(file, render(result, end));
      return [file];
    },
  };
}

/** Write a report file: its text passes through `maskOutgoing` (no secret, card number or security code leaves). */
function writeReportFile(file: string, text: string): void {
  fs.writeFileSync(file, maskOutgoing(text));
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
