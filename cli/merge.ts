/** `pagi-conform merge DIR…`: one set of reports from the shard runs in the folders (exit code of the merged verdict). */
import { optionLines, parseCommandLine, readEnv } from '../core/config/load.js';
import { UsageError, defaults, type RunOptions } from '../core/config/options.js';
import { EXIT } from '../core/types/errors.js';

const HELP = [
  'usage: pagi-conform merge DIR… [options]',
  '',
  "Merges the shards of one run ('pagi-conform run --shard i/n --out DIR' on n jobs) into one set of reports:",
  "each DIR is a shard's --out folder (or its shard/ folder); every shard 1..n must be given once.",
  '',
  'options:',
  ...optionLines('merge'),
  '',
  'exit codes: those of the merged verdict (0 CONFORMANT, 1 NOT CONFORMANT, 3 INCONCLUSIVE);',
  '            2 when the shards are incomplete, do not belong to one run, or an option is wrong.',
].join('\n');

/** Run the command with its arguments; returns the exit code. */
export async function mergeMain(argv: string[]): Promise<number> {
  const { options: explicit, positionals } = parseCommandLine('merge', argv, true);
  if (explicit.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (!positionals.length)
    throw new UsageError("Name the folders of the shard runs to merge; 'pagi-conform merge --help' shows how.");
  const options = { ...defaults('merge'), ...readEnv(process.env, 'merge'), ...explicit } as RunOptions;
  const { mergeKitShards } = await import('../kit/kit.js');
  const { result } = await mergeKitShards(positionals, options, ['pagi-conform', 'merge', ...argv]);
  return result.exitCode;
}
