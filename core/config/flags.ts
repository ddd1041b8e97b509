/**
 * The option-table mechanism of the commands that take flags only (`serve`, `selftest`): one typed row per option
 * (flag, value type, default, description), from which parseArgs' options, the parsed values and the `--help`
 * lines are generated. `run` uses the richer table of options.ts (config file and environment too) with the same
 * value types. A table is typed against its options object, so an option without a row is a compile error.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type ValueType } from './options.js';
import { didYouMean } from './suggest.js';

/** One flag of a command. */
export interface FlagRow<T> {
  /** Flag without `--`. */
  flag: string;
  type: ValueType<T>;
  default?: T;
  description: string;
}

/** A command's table: exactly one row for every key of its options `O`. */
export type FlagTable<O> = { [K in keyof Required<O>]: FlagRow<NonNullable<O[K]>> };

/** The parseArgs options of a table (`--help`/`-h` added). */
function parseArgsOptions<O>(table: FlagTable<O>): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const row of Object.values(table) as FlagRow<unknown>[]) options[row.flag] = { type: row.type.cli };
  return options;
}

/**
 * A parseArgs error as the one sentence of a UsageError: what is wrong with which argument, the closest flag of
 * `flags` (without `--`) for an unknown one, and where the options are listed (`pagi-conform COMMAND --help`).
 */
export function argvError(error: unknown, command: string, flags: readonly string[]): UsageError {
  const e = error as { code?: string; message?: string };
  const message = e.message ?? String(error);
  const name = /'([^']+)'/.exec(message)?.[1] ?? '';
  const help = `Run 'pagi-conform ${command} --help' for the options.`;
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || /^Unknown option/.test(message)) {
    const hint = didYouMean(name.replace(/^-+/, ''), flags, (f) => `--${f}`);
    return new UsageError(`Unknown option '${name}'${hint || '.'} ${help}`);
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return new UsageError(`Option '${name.split(' ')[0]}' needs a value. ${help}`);
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return new UsageError(`Unexpected argument '${name}': this command takes options only. ${help}`);
  return new UsageError(`${message.split('\n')[0]!.replace(/\.?$/, '.')} ${help}`);
}

/**
 * Parse a command's flags against its table. Throws a UsageError naming the argument parseArgs refuses (an unknown
 * flag with the closest one of the table), or the flag whose value its type refuses. `help` is true when `--help`
 * was given.
 */
export function parseFlags<O>(
  table: FlagTable<O>,
  argv: readonly string[],
  command = 'serve',
): { values: Partial<O>; help: boolean } {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: parseArgsOptions(table),
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw argvError(
      e,
      command,
      (Object.values(table) as FlagRow<unknown>[]).map((r) => r.flag),
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, row] of Object.entries(table) as [string, FlagRow<unknown>][]) {
    const raw = values[row.flag];
    if (raw !== undefined) out[key] = row.type.parse(raw, `--${row.flag}`);
    else if (row.default !== undefined) out[key] = row.default;
  }
  return { values: out as Partial<O>, help: values.help === true };
}

/** The `--help` lines of a table, aligned, defaults shown. */
export function flagHelp<O>(table: FlagTable<O>): string {
  const rows = (Object.values(table) as FlagRow<unknown>[]).map((r) => [
    `--${r.flag}${r.type.label ? ` ${r.type.label}` : ''}`,
    r.default === undefined || (Array.isArray(r.default) && !r.default.length)
      ? r.description
      : `${r.description} (default ${JSON.stringify(r.default)})`,
  ]);
  rows.push(['--help', 'show this text']);
  const width = Math.max(...rows.map(([f]) => f!.length)) + 2;
  return rows.map(([f, d]) => `  ${f!.padEnd(width)}${d}`).join('\n');
}
