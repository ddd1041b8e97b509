import fs from 'node:fs';
import path from 'node:path';
import { readYamlFile } from '../core/yaml.js';
import { deprecationLine, ProfileFormatError, readProfile } from '../core/profile/load.js';
import { formatLabel } from '../core/profile/formats.js';
import { SPEC_DIR } from '../core/spec/paths.js';
import { EXIT } from '../core/types/errors.js';

const USAGE = [
  'usage: pagi-conform profile validate FILE|NAME',
  '       pagi-conform profile migrate FILE [--out FILE]',
  '       pagi-conform profile discover --target URL [--config FILE] [--out FILE]',
].join('\n');
const HELP = [
  USAGE,
  '',
  'validate: checks a vendor profile against the published profile schema (schemas/profile.schema.json) and its',
  "consistency rules. FILE is a YAML file; NAME (no '/' or '.') is a profile shipped with the kit under spec/profiles,",
  "as 'run --profile NAME' takes it. A template to start from: examples/vendor-profile.yaml. A profile of an earlier",
  'format is migrated in memory first (one deprecation line says so). It prints how many points the profile does not',
  'state (format 6: a key left out), then each: a run judges no check that needs one (not applicable, naming it).',
  '',
  "migrate: rewrites a profile of an earlier format in the current one ('pagi-conform profile migrate --help').",
  '',
  "discover: drafts a profile of a sandbox by probing it ('pagi-conform profile discover --help').",
  '',
  'exit codes of validate: 0 valid, 1 not valid (each problem printed), 2 usage error, unreadable file or a profile',
  'format newer than the kit.',
].join('\n');

/** A file path, or a profile shipped under spec/profiles named the way `run --profile` names it. */
function profileFile(fileOrName: string): string {
  if (/[\\/.]/.test(fileOrName) || fs.existsSync(fileOrName)) return fileOrName;
  return path.join(SPEC_DIR, 'profiles', `${fileOrName}.yaml`);
}

/**
 * `pagi-conform profile validate FILE|NAME`: 0 valid, 1 invalid (each problem printed), 2 usage, unreadable file or a
 * newer format. `profile migrate` and `profile discover` are modules of their own.
 */
export async function profileMain(argv: string[]): Promise<number> {
  if (argv[0] === 'migrate') return (await import('./profile-migrate.js')).profileMigrateMain(argv.slice(1));
  if (argv[0] === 'discover') return (await import('./profile-discover.js')).profileDiscoverMain(argv.slice(1));
  if (argv.some((a) => a === '--help' || a === '-h')) {
    console.log(HELP);
    return EXIT.ok;
  }
  const [sub, name, ...extra] = argv;
  if (sub !== 'validate' || !name || extra.length || name.startsWith('-')) {
    console.error(`${USAGE}\n'pagi-conform profile --help' says more.`);
    return EXIT.usage;
  }
  const file = profileFile(name);
  let value: unknown;
  try {
    value = readYamlFile(file);
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT' && file !== name;
    console.error(
      missing
        ? `pagi-conform: no profile named '${name}' (spec/profiles has ${fs
            .readdirSync(path.join(SPEC_DIR, 'profiles'))
            .filter((f) => f.endsWith('.yaml'))
            .map((f) => f.slice(0, -5))
            .join(', ')}); a file path needs a '/' or an extension.`
        : `pagi-conform: cannot read profile ${name}: ${(e as Error).message.split('\n')[0]}`,
    );
    return EXIT.usage;
  }
  let read: ReturnType<typeof readProfile>;
  try {
    read = readProfile(value, name);
  } catch (e) {
    if (!(e instanceof ProfileFormatError)) throw e;
    console.error(`pagi-conform: ${e.message}`);
    return EXIT.usage;
  }
  if (read.migration) console.error(deprecationLine(name, read.migration));
  const { problems } = read;
  if (problems.length) {
    const as = read.problemsOf
      ? `, read as ${formatLabel(read.problemsOf)}${read.closest ? ', the closest format' : ''}`
      : '';
    console.error(`${name}: NOT VALID (${problems.length} problem${problems.length > 1 ? 's' : ''}${as})`);
    for (const p of problems) console.error(`  - ${p}`);
    return EXIT.failed;
  }
  const unstated = read.unstated;
  const count = `${unstated.length} point${unstated.length === 1 ? '' : 's'} not stated`;
  console.log(
    read.migration
      ? `${name}: valid profile of ${formatLabel(read.migration.from)}, read as format ${read.migration.to} (schemas/profile.schema.json); ${count}`
      : `${name}: valid profile (schemas/profile.schema.json); ${count}`,
  );
  // A run judges no check that needs one of them: they are listed so that the vendor can state them.
  for (const pointer of unstated) console.log(`  not stated: ${pointer}`);
  return EXIT.ok;
}
