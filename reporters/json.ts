/**
 * Writes the run's results to `<out>/results.json`: the RunResult under the `$schema` and `schemaVersion` of
 * schemas/results.schema.json, which documents every field.
 */
import type { RunResult } from '../core/model.js';
import { SCHEMA_BASE } from '../core/spec/paths.js';
import type { ConformanceRunResults } from '../core/types/generated.js';
import { fileReporter } from './file.js';
import type { KitReporter } from '../core/reporter.js';

/** `$id` of the results schema. */
const RESULTS_SCHEMA_ID = `${SCHEMA_BASE}results.schema.json`;

/** Version of the results format: the major changes when a field is removed or changes meaning, the minor when one is added. */
const RESULTS_SCHEMA_VERSION = '1.8';

/** The content of results.json. */
export type ResultsDocument = ConformanceRunResults;

/** The RunResult as results.json holds it. */
export function resultsDocument(result: RunResult): ResultsDocument {
  return {
    $schema: RESULTS_SCHEMA_ID as ConformanceRunResults['$schema'],
    schemaVersion: RESULTS_SCHEMA_VERSION,
    ...result,
  };
}

/** The results.json reporter. */
export function jsonReporter(): KitReporter {
  return fileReporter('json', 'results.json', (result) => `${JSON.stringify(resultsDocument(result), null, 2)}\n`);
}
