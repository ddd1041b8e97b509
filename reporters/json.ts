/** Writes the run's results (the RunResult) to `<out>/results.json`. */
import fs from 'node:fs';
import path from 'node:path';
import type { KitReporter } from './types.js';

/** The results.json reporter. */
export function jsonReporter(): KitReporter {
  return {
    name: 'json',
    onRunEnd(result, outDir) {
      fs.mkdirSync(outDir, { recursive: true });
      const file = path.join(outDir, 'results.json');
      fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
      return [file];
    },
  };
}
