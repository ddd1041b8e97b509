import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { shownValue } from '../mask.js';
import { parseYamlText, yamlPosition } from '../yaml.js';
import {
  UsageError,
  defaultOf,
  defaults,
  flagOf,
  optionsOf,
  type Command,
  type OptionDef,
  type RunOptions,
} from './options.js';
import { didYouMean } from './suggest.js';
import { argvError } from './flags.js';

/** The rows of `pagi-conform run` (flags, config-file keys, environment). */
const TABLE = optionsOf('run');

function parseValue(def: OptionDef, raw: unknown, where: string): unknown {
  return def.type.parse(raw, where);
}

/**
 * `--flag VALUE` as `--flag=VALUE` for the value flags, so a value starting with '-' (`--concurrency -3`) reaches the
 * option's own parser and its message instead of parseArgs' "argument is ambiguous".
 */
function attachValues(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const next = argv[i + 1];
    if (name && options[name]?.type === 'string' && next !== undefined && /^-[0-9.]/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** Parse a command's arguments with parseArgs options generated from its rows of the table; positionals apart. */
export function parseCommandLine(
  command: Command,
  argv: readonly string[],
  allowPositionals: boolean,
): { options: Partial<RunOptions>; positionals: string[] } {
  const rows = optionsOf(command);
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const def of rows) {
    const flag = flagOf(def, command);
    if (!flag) continue;
    options[flag] =
      def.type.cli === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: def.type.label === 'LIST' };
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: attachValues(argv, options), options, strict: true, allowPositionals });
  } catch (e) {
    throw argvError(e, command, Object.keys(options));
  }
  const out: Record<string, unknown> = {};
  for (const def of rows) {
    const flag = flagOf(def, command);
    if (flag && parsed.values[flag] !== undefined) out[def.key] = parseValue(def, parsed.values[flag], `--${flag}`);
  }
  return { options: out as Partial<RunOptions>, positionals: parsed.positionals };
}

/** Parse `pagi-conform run` arguments with parseArgs options generated from the table. */
export function parseArgv(argv: readonly string[]): Partial<RunOptions> {
  return parseCommandLine('run', argv, false).options;
}

/** Values from the table's environment variables (of `command`'s rows). */
export function readEnv(env: NodeJS.ProcessEnv, command: Command = 'run'): Partial<RunOptions> {
  const out: Record<string, unknown> = {};
  for (const def of optionsOf(command)) {
    const raw = def.env ? env[def.env] : undefined;
    if (raw !== undefined && raw !== '') out[def.key] = parseValue(def, raw, def.env!);
  }
  return out as Partial<RunOptions>;
}

/**
 * Read a YAML config file: a mapping of table keys; file-path values are relative to the file's folder. Each error
 * is one sentence starting with `file:line:column` (the key, or its value), the value seen masked. For `proxy`, the
 * file may hold `run`'s keys too (one pagi.yaml for both): those of no row of `command` are
 * read (and checked) but left out (`proxy`; the other commands keep every key of `run`'s table, as before).
 */
export function readConfigFile(file: string, command: Command = 'run'): Partial<RunOptions> {
  const own = command === 'proxy' ? optionsOf(command) : TABLE;
  const table = [...own, ...TABLE.filter((d) => !own.some((o) => o.key === d.key))];
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `Cannot read the config file ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check the --config path or PAGI_CONFIG.`,
    );
  }
  const doc: unknown = parseYamlText(text, file);
  if (doc === null || doc === undefined) return {};
  const at = (keys: string[], key = false) => {
    const p = yamlPosition(text, keys, key);
    return p ? `${file}:${p.line}:${p.column}` : file;
  };
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new UsageError(
      `${at([])}: the config file must hold a YAML mapping of option keys (found ${shownValue(doc)}).`,
    );
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(doc)) {
    const def = table.find((d) => d.key === key && d.configFile !== false);
    if (!def) {
      const keys = table.filter((d) => d.configFile !== false).map((d) => d.key as string);
      throw new UsageError(
        `${at([key], true)}: unknown key '${key}'${didYouMean(key, keys) || '.'} 'pagi-conform run --help' lists the keys.`,
      );
    }
    const value = parseValue(def, raw, `${at([key])}: ${key}`);
    if (!own.includes(def)) continue;
    out[key] =
      def.type.path && typeof value === 'string' && !(key === 'profile' && !/[\\/.]/.test(value))
        ? path.resolve(path.dirname(file), value)
        : value;
  }
  return out as Partial<RunOptions>;
}

/** Check programmatic options against the table (same parsers, same messages). */
export function checkOptions(given: Partial<RunOptions>): Partial<RunOptions> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(given)) {
    if (raw === undefined) continue;
    const def = TABLE.find((d) => d.key === key);
    if (!def) {
      const hint = didYouMean(
        key,
        TABLE.map((d) => d.key as string),
      );
      throw new UsageError(
        `Unknown option '${key}'${hint || '.'} The options are the keys of the OPTIONS table the package exports.`,
      );
    }
    out[key] = parseValue(def, raw, key);
  }
  return out as Partial<RunOptions>;
}

/**
 * Merge options: table defaults < config file < environment < explicit (CLI flags or `run()` options).
 * The config file is the explicit one, else the environment's.
 */
export function resolveOptions(
  explicit: Partial<RunOptions>,
  env: NodeJS.ProcessEnv = process.env,
  command: Command = 'run',
): RunOptions {
  const fromEnv = readEnv(env, command);
  const configFile = explicit.config ?? fromEnv.config;
  const fromFile = configFile ? readConfigFile(configFile, command) : {};
  return { ...defaults(command), ...fromFile, ...fromEnv, ...explicit } as RunOptions;
}

function wrap(text: string, indent: number, width = 100): string {
  const words = text.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line && line.length + w.length + 1 > width - indent) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

function defaultText(def: OptionDef, command: Command): string {
  const notes: string[] = [];
  const value = defaultOf(def, command);
  if (value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)) {
    notes.push(`default: ${Array.isArray(value) ? value.join(',') : String(value)}`);
  }
  if (def.env) notes.push(`env ${def.env}`);
  return notes.length ? ` (${notes.join('; ')})` : '';
}

/** The `options:` lines of a command's `--help`, generated from its rows of the table. */
export function optionLines(command: Command): string[] {
  return optionsOf(command)
    .filter((d) => flagOf(d, command))
    .map((def) => {
      const head = `  --${flagOf(def, command)}${def.type.label ? ` ${def.type.label}` : ''}`;
      // A head wider than its column puts the description on the next line.
      return head.length < 30
        ? `${head.padEnd(30)}${wrap(def.description + defaultText(def, command), 30)}`
        : `${head}\n${' '.repeat(30)}${wrap(def.description + defaultText(def, command), 30)}`;
    });
}

/** `pagi-conform run --help`, generated from the table. */
export function helpText(): string {
  const lines = [
    'usage: pagi-conform run [options]',
    '',
    'Runs the conformance suites against a gateway and reports a verdict.',
    '',
    'options:',
    ...optionLines('run'),
  ];
  lines.push('', 'config-file keys (besides the camelCase name of any option above):');
  for (const def of TABLE.filter((d) => !flagOf(d, 'run')))
    lines.push(`  ${def.key.padEnd(28)}${wrap(def.description + defaultText(def, 'run'), 30)}`);
  lines.push(
    '',
    'exit codes: 0 CONFORMANT (of the selected checks: an --only/--skip run says it is partial), 1 NOT CONFORMANT,',
    '            2 usage/config error, unreachable target, credentials refused or no PAGI gateway at the URL (no report),',
    '            3 INCONCLUSIVE (a selected must check could not run: the target answered 429/503).',
  );
  return lines.join('\n');
}
