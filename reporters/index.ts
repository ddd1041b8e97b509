/** Kit reporters by name (`--reporter`). `junit` is vitest's own JUnit reporter, configured by the runner. */
import { consoleReporter } from './console.js';
import { jsonReporter } from './json.js';
import type { KitReporter } from './types.js';

/** Factories of the kit's reporters. */
export const KIT_REPORTERS: Record<string, () => KitReporter> = {
  console: () => consoleReporter(),
  json: () => jsonReporter(),
};

/** Reporters served by vitest itself, with the file each writes under the output folder. */
export const VITEST_REPORTERS: Record<string, string> = { junit: 'junit.xml' };

/** Every reporter name `--reporter` accepts. */
export function reporterNames(): string[] {
  return [...Object.keys(KIT_REPORTERS), ...Object.keys(VITEST_REPORTERS)];
}
