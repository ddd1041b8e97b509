/** `pagi-conform profile migrate FILE [--out FILE]`: rewrite a profile of an earlier format in the current one. */
import fs from 'node:fs';
import path from 'node:path';
import { optionLines, parseCommandLine } from '../core/config/load.js';
import { UsageError } from '../core/config/options.js';
import { CURRENT_PROFILE_FORMAT, formatLabel } from '../core/profile/formats.js';
import { changeCounts, locatedProblems, readProfile } from '../core/profile/load.js';
import { migratedYaml, type Migration, type ProfileChange } from '../core/profile/migrate.js';
import { EXIT } from '../core/types/errors.js';
import { parseYamlText } from '../core/yaml.js';

const HELP = [
  'usage: pagi-conform profile migrate FILE [--out FILE]',
  '',
  `Rewrites a profile of an earlier format in the current one (format ${CURRENT_PROFILE_FORMAT}). A profile without a`,
  "'format' key is in one of the unversioned formats of release 0.1.0, recognised by their kept schemas",
  '(schemas/profile/). Prints each change: keys added with the value that keeps the old behaviour, keys dropped',
  'with the reason, keys moved with where they live now. Only the lines of the keys that change are edited: the',
  "rest of the file, comments included, stays as written. CHANGELOG.md lists what each format changed; 'run',",
  "'serve' and 'profile validate' read an older profile too, migrating it in memory with one deprecation line.",
  '',
  'options:',
  ...optionLines('profile migrate'),
  '',
  'exit codes: 0 written (a profile already in the current format is written unchanged), 1 not a valid profile of',
  '            any format the kit knows (each problem printed, nothing written), 2 usage error, unreadable file,',
  '            a format newer than the kit, or the output cannot be written.',
].join('\n');

/** A value as a change line shows it: compact JSON, cut after 60 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** One line per change. */
function changeLine(c: ProfileChange): string {
  if (c.kind === 'added') return `    added    ${c.path} = ${shown(c.value)}: ${c.reason}`;
  if (c.kind === 'moved') return `    moved    ${c.path} (${shown(c.value)}) → ${c.to}: ${c.reason}`;
  return `    dropped  ${c.path} (${shown(c.value)}): ${c.reason}`;
}

/** What the migration did, step by step. */
function report(file: string, migration: Migration, alsoValidIn: number[] | undefined): string[] {
  const lines = [`${file}: ${formatLabel(migration.from)} → format ${migration.to}, ${changeCounts(migration)}`];
  if (alsoValidIn?.length)
    lines.push(
      `  also valid as ${alsoValidIn.map((n) => `format ${n}`).join(', ')}: migrated from the newest, format ${migration.from}`,
    );
  for (const { step, changes } of migration.steps) {
    const at = step.commit === 'unreleased' ? 'this release' : step.commit;
    lines.push(`  format ${step.from} → ${step.from + 1} (${at}: ${step.title}):`);
    lines.push(...(changes.length ? changes.map(changeLine) : ['    nothing in this profile']));
  }
  return lines;
}

/** Write `text` to `file` through a temporary file beside it, so a failed write leaves the old file whole. */
export function writeFile(file: string, text: string): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new UsageError(`Cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
}

/** Run the command with its arguments (after `profile migrate`); returns the exit code. */
export async function profileMigrateMain(argv: string[]): Promise<number> {
  const { options, positionals } = parseCommandLine('profile migrate', argv, true);
  if (options.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1)
    throw new UsageError("Name one profile file; 'pagi-conform profile migrate --help' shows how.");
  const file = positionals[0]!;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
  const value: unknown = parseYamlText(text, file);
  const read = readProfile(value, file);
  const out = options.profileOut;
  // With --out the changes are the command's output; without, the profile is, and the changes go to stderr.
  const say = out ? (line: string) => console.log(line) : (line: string) => console.error(line);
  if (!read.profile && !read.migration) {
    const as = read.problemsOf ? formatLabel(read.problemsOf) : `format ${CURRENT_PROFILE_FORMAT}`;
    console.error(
      `${file}: NOT MIGRATED: not a valid profile of ${read.closest ? `any format the kit knows (closest: ${as})` : as} (${read.problems.length} problem${read.problems.length === 1 ? '' : 's'}):`,
    );
    for (const p of locatedProblems(read.problems, text, file)) console.error(`  - ${p}`);
    return EXIT.failed;
  }
  if (!read.migration) {
    say(`${file}: already a profile of format ${CURRENT_PROFILE_FORMAT}; nothing to migrate`);
    if (!out) process.stdout.write(text);
    else if (path.resolve(out) !== path.resolve(file)) writeFile(out, text);
    return EXIT.ok;
  }
  for (const line of report(file, read.migration, read.alsoValidIn)) say(line);
  if (!read.profile) {
    console.error(
      `${file}: NOT MIGRATED: the migrated profile breaks ${read.problems.length} rule${read.problems.length === 1 ? '' : 's'} of format ${CURRENT_PROFILE_FORMAT}:`,
    );
    for (const p of read.problems) console.error(`  - ${p}`);
    return EXIT.failed;
  }
  const migrated = migratedYaml(text, value as Record<string, unknown>, read.migration);
  const how = migrated.layoutKept
    ? 'only the changed keys edited, the rest as written'
    : 'written again by the yaml library: comments kept, alignment not (a change fell in a flow collection)';
  if (out) {
    writeFile(out, migrated.text);
    say(`wrote ${out}: a valid profile of format ${CURRENT_PROFILE_FORMAT} (${how})`);
  } else {
    process.stdout.write(migrated.text);
    say(`a valid profile of format ${CURRENT_PROFILE_FORMAT} written to standard output (${how})`);
  }
  return EXIT.ok;
}
