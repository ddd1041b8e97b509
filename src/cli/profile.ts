import { readYamlFile } from '../yaml.js';
import { profileProblems } from '../profile/load.js';

const USAGE = 'usage: pagi-conform profile validate FILE';

/** `pagi-conform profile validate FILE`: 0 valid, 1 invalid (each problem printed), 2 usage or unreadable file. */
export async function profileMain(argv: string[]): Promise<number> {
  const [sub, file, ...extra] = argv;
  if (sub !== 'validate' || !file || extra.length) {
    console.error(USAGE);
    return 2;
  }
  let value: unknown;
  try {
    value = readYamlFile(file);
  } catch (e) {
    console.error(`pagi-conform: cannot read profile ${file}: ${(e as Error).message.split('\n')[0]}`);
    return 2;
  }
  const problems = profileProblems(value);
  if (problems.length) {
    console.error(`${file}: NOT VALID (${problems.length} problem${problems.length > 1 ? 's' : ''})`);
    for (const p of problems) console.error(`  - ${p}`);
    return 1;
  }
  console.log(`${file}: valid profile (schemas/profile.schema.json)`);
  return 0;
}
