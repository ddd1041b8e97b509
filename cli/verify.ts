/** `pagi-conform verify REPORT`: whether an HTML report is untouched (exit 0), edited or badly signed (1), or usage (2). */
import fs from 'node:fs';
import { optionLines, parseCommandLine } from '../core/config/load.js';
import { UsageError } from '../core/config/options.js';
import { loadPublicKey, verifyReport } from '../reporters/seal.js';
import { EXIT } from '../core/types/errors.js';

const HELP = [
  'usage: pagi-conform verify REPORT [options]',
  '',
  'Tells whether a report.html is untouched: its embedded results and the page match the sealed digests, and its',
  'signature (pagi-conform run --sign-key) verifies.',
  '',
  'options:',
  ...optionLines('verify'),
  '',
  'exit codes: 0 untouched and signed, 1 edited, not a sealed report, or not signed (an unsigned seal proves nothing), 2 usage error.',
].join('\n');

/** Run the command with its arguments; returns the exit code. */
export async function verifyMain(argv: string[]): Promise<number> {
  const { options, positionals } = parseCommandLine('verify', argv, true);
  if (options.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError("Name one report file; 'pagi-conform verify --help' shows how.");
  const file = positionals[0]!;
  let html: string;
  try {
    html = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
  const verification = verifyReport(html, options.publicKey ? loadPublicKey(options.publicKey) : undefined);
  for (const line of verification.lines) console.log(`${file}: ${line}`);
  return verification.ok ? 0 : 1;
}
