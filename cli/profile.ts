import fs from 'node:fs';
import path from 'node:path';
import { parseYamlText } from '../core/yaml.js';
import { deprecationLine, locatedProblems, readProfile, readProfileBytes } from '../core/profile/load.js';
import { formatLabel } from '../core/profile/formats.js';
import { SPEC_DIR } from '../core/spec/paths.js';
import { EXIT, UsageError } from '../core/types/errors.js';
import { didYouMean } from '../core/config/suggest.js';

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
  if (sub !== 'validate') {
    const hint = sub ? didYouMean(sub, ['validate', 'migrate', 'discover'], (c) => `profile ${c}`) : '';
    throw new UsageError(
      `${sub ? `Unknown profile command '${sub}'${hint || '.'}` : 'Name a profile command.'} The commands are profile validate, profile migrate and profile discover; 'pagi-conform profile --help' says more.`,
    );
  }
  if (!name || extra.length || name.startsWith('-'))
    throw new UsageError(
      `Name one profile to validate ('pagi-conform profile validate FILE|NAME'${extra.length ? `; received also '${extra.join(' ')}'` : ''}); 'pagi-conform profile --help' says more.`,
    );
  const file = profileFile(name);
  const text = readProfileBytes(name, path.resolve(file)).toString('utf8');
  const read = readProfile(parseYamlText(text, file), name);
  if (read.migration) console.error(deprecationLine(name, read.migration));
  const { problems } = read;
  if (problems.length) {
    const as = read.problemsOf
      ? `, read as ${formatLabel(read.problemsOf)}${read.closest ? ', the closest format' : ''}`
      : '';
    console.error(`${name}: NOT VALID (${problems.length} problem${problems.length > 1 ? 's' : ''}${as})`);
    for (const p of locatedProblems(problems, text, file)) console.error(`  - ${p}`);
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
