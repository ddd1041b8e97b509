/** The spec's examples (spec/examples/*.yaml) for tests: each call parses the file again, so a caller may change what it gets. */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SPEC_DIR } from '../../core/spec/paths.js';

const EXAMPLES_DIR = path.join(SPEC_DIR, 'examples');

/** The example value of one file under spec/examples, named with or without `.yaml` (a fresh copy). */
export function exampleValue(name: string): any {
  const file = path.join(EXAMPLES_DIR, name.endsWith('.yaml') ? name : `${name}.yaml`);
  return parseYaml(fs.readFileSync(file, 'utf8')).value;
}

/** The file names under spec/examples, sorted. */
export function exampleNames(): string[] {
  return fs
    .readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}
