/** Kit reporters by name (`--reporter`), made for a run's options; the console reporter always runs last. */
import { UsageError, type RunOptions } from '../core/config/options.js';
import { consoleReporter } from './console.js';
import { staleReportRemover } from './file.js';
import { harReporter } from './har.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import { markdownReporter } from './markdown.js';
import { loadPrivateKey } from './seal.js';
import type { KitReporter } from '../core/reporter.js';

type Factory = (options: Pick<RunOptions, 'signKey'>) => KitReporter;

/** Factories of the kit's reporters, in the order they run. */
const KIT_REPORTERS: Record<string, Factory> = {
  json: () => jsonReporter(),
  junit: () => junitReporter(),
  markdown: () => markdownReporter(),
  har: () => harReporter(),
  html: (options) => htmlReporter(options.signKey ? loadPrivateKey(options.signKey) : undefined),
  console: () => consoleReporter(),
};

/** Every reporter name `--reporter` accepts. */
function reporterNames(): string[] {
  return Object.keys(KIT_REPORTERS);
}

/** Every file a kit reporter writes in the output folder: the report set a run owns there. */
export function reportFiles(): string[] {
  return Object.values(KIT_REPORTERS).flatMap((make) => {
    const reporter: KitReporter & { fileName?: string } = make({ signKey: undefined });
    return reporter.fileName ? [reporter.fileName] : [];
  });
}

/**
 * The reporters a run's options select, in the order they run (the console last, so it can list the files the
 * others wrote before its verdict line), after the one removing the report files an earlier run left in the output
 * folder. `--sign-key` selects the html reporter. Throws a UsageError for an unknown name or an unusable key.
 */
export function createReporters(options: Pick<RunOptions, 'reporter' | 'signKey'>): KitReporter[] {
  const unknown = options.reporter.filter((r) => !KIT_REPORTERS[r]);
  if (unknown.length) throw new UsageError(`Unknown reporter '${unknown[0]}'; use ${reporterNames().join(', ')}.`);
  const names = new Set([...options.reporter, ...(options.signKey ? ['html'] : [])]);
  return [
    staleReportRemover(reportFiles()),
    ...Object.entries(KIT_REPORTERS)
      .filter(([name]) => names.has(name))
      .map(([, make]) => make(options)),
  ];
}
