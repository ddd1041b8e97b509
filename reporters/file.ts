/** Reporters that write one file into the run's output folder when the run ends. */
import fs from 'node:fs';
import path from 'node:path';
import type { RunResult } from '../src/model.js';
import type { KitReporter, RunEnd } from './types.js';

/** A reporter named `name` writing `fileName` in the output folder, its text made by `render`. */
export function fileReporter(name: string, fileName: string, render: (result: RunResult, end: RunEnd) => string): KitReporter {
  return {
    name,
    onRunEnd(result, end) {
      fs.mkdirSync(end.outDir, { recursive: true });
      const file = path.resolve(end.outDir, fileName);
      fs.writeFileSync(file, render(result, end));
      return [file];
    },
  };
}
