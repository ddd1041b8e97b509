/** Reporters that write one file into the run's output folder when the run ends; `writeReportFile` is their one write path. */
import fs from 'node:fs';
import path from 'node:path';
import { maskOutgoing } from '../core/mask.js';
import type { RunResult } from '../core/model.js';
import type { KitReporter, RunEnd } from '../core/reporter.js';

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
): KitReporter {
  return {
    name,
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
