/** Reporters that write one file into the run's output folder when the run ends; `writeReportFile` is their one write path. */
import fs from 'node:fs';
import path from 'node:path';
import { maskOutgoing } from '../core/mask.js';
import type { RunResult } from '../core/model.js';
import type { KitReporter, RunEnd } from '../core/reporter.js';

/** A reporter named `name` writing `fileName` in the output folder, its text made by `render`. */
export function fileReporter(
  name: string,
  fileName: string,
  render: (result: RunResult, end: RunEnd) => string,
): KitReporter {
  return {
    name,
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
