/**
 * `pagi-conform reproduce RESULTS CHECK[@operation]`: run one check of a finished run again, against the run's
 * target, with the run's seed and profile and the test data of the config (flags, config file, PAGI_* environment:
 * never printed), and print its new outcome beside the old one. Exit 1 when the check fails again, 0 when it no
 * longer fails, 2 on a usage error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { optionLines, parseCommandLine, resolveOptions } from '../core/config/load.js';
import { UsageError, type RunOptions } from '../core/config/options.js';
import { guardStandardStreams, protectOutput } from '../core/mask.js';
import type { CheckResult, RunResult } from '../core/model.js';
import { checkName, evidenceOf, findingLine, printable, problems } from '../reporters/format.js';
import { EXIT } from '../core/types/errors.js';

const HELP = [
  'usage: pagi-conform reproduce RESULTS CHECK[@operation] [options]',
  '',
  "Runs one check of a finished run again: RESULTS is the run's results.json, CHECK a check id, @operation narrows it",
  'to one operation. The target, seed and profile come from RESULTS; test cards, security code and credentials from',
  "the options below (--config, PAGI_* variables), as for 'run'. Prints the check's new outcome, its findings and the",
  'curl line of its request (card fields as $PAGI_CARD, $PAGI_CARD_MONTH, $PAGI_CARD_YEAR and $PAGI_CVC).',
  '',
  'options (those of run; --target, --profile and --seed override the ones recorded):',
  ...optionLines('run'),
  '',
  'exit codes: 0 the check no longer fails, 1 it fails again, 2 usage error or the run could not be repeated.',
].join('\n');

function outcomeLines(now: CheckResult, before: CheckResult | undefined): string[] {
  const lines = [
    `  ${checkName(now)}: ${now.status}${before ? ` (in the run: ${before.status})` : ''}${now.reason ? ` - ${now.reason}` : ''}`,
  ];
  for (const f of problems(now)) lines.push(`      ${printable(findingLine(f))}`);
  const evidence = evidenceOf(now);
  if (evidence) lines.push(`      ${printable(evidence.curl)}`);
  return lines;
}

/** Run the command with its arguments; returns the exit code. */
export async function reproduceMain(argv: string[]): Promise<number> {
  const { options: explicit, positionals } = parseCommandLine('run', argv, true);
  if (explicit.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 2)
    throw new UsageError(
      "Name a results.json and a check (CHECK or CHECK@operation); 'pagi-conform reproduce --help' shows how.",
    );
  const [file, selector] = positionals as [string, string];
  let results: RunResult;
  try {
    results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResult;
  } catch (e) {
    throw new UsageError(
      `Cannot read ${file} as results.json: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`,
    );
  }
  if (!results?.metadata || !Array.isArray(results.checks))
    throw new UsageError(`${file} is not a results.json of pagi-conform run.`);
  const [checkId, operation] = selector.split('@') as [string, string | undefined];
  const before = results.checks.filter((c) => c.checkId === checkId && (!operation || c.operation === operation));
  if (!before.length)
    throw new UsageError(`${file} has no result of ${selector}; the check ids are those of 'pagi-conform run --list'.`);
  const m = results.metadata;
  const profile = fs.existsSync(m.profile.file) ? m.profile.file : m.profile.name;
  const recorded: Partial<RunOptions> = {
    ...(m.target.embedded ? {} : { target: m.target.baseUrl }),
    profile,
    seed: m.seed,
  };
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-reproduce-'));
  const options = resolveOptions({
    ...recorded,
    ...explicit,
    only: before.map((c) => `${c.operation}/${c.checkId}`),
    skip: [],
    reporter: [],
    out,
    list: false,
  });
  guardStandardStreams();
  protectOutput({ secrets: options.secret ? [options.secret] : [], cards: Object.values(options.cards ?? {}) });
  console.log(
    printable(
      `reproducing ${selector} of ${file}: target ${options.target ?? 'the embedded reference gateway'}, seed ${options.seed}, profile ${m.profile.name}`,
    ),
  );
  const { runKit } = await import('../kit/kit.js');
  let result: RunResult;
  try {
    ({ result } = await runKit(options, { commandLine: ['pagi-conform', 'reproduce', ...argv] }));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  const now = result.checks.filter((c) => before.some((b) => b.checkId === c.checkId && b.operation === c.operation));
  for (const r of now)
    for (const line of outcomeLines(
      r,
      before.find((b) => b.operation === r.operation),
    ))
      console.log(line);
  if (now.some((r) => evidenceOf(r)?.curl.includes('$PAGI_')))
    console.log(
      '  (export PAGI_CARD, PAGI_CARD_MONTH, PAGI_CARD_YEAR, PAGI_CVC and PAGI_SECRET, the test card, its expiry, security code and secret of the config, before running a curl line)',
    );
  const failing = now.filter((r) => r.status === 'failed').length;
  console.log(
    failing
      ? `reproduced: ${failing} of ${now.length} fail again`
      : `not reproduced: ${now.length ? 'the check no longer fails' : 'the check did not run'}`,
  );
  return failing ? 1 : 0;
}
