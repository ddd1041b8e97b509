/**
 * `pagi-conform` command dispatcher. Each subcommand lives in its own module and returns an exit code:
 * 0 success/CONFORMANT, 1 NOT CONFORMANT (or a failed verification), 2 usage, configuration, connection or set-up
 * error (credentials refused, no PAGI gateway at the target), 3 INCONCLUSIVE. An error a command throws is printed
 * here, the one place that maps errors to exit codes: a KitError as its one sentence with its class's `exitCode`,
 * anything else as a defect of the kit (exit 2).
 */
import { didYouMean } from '../core/config/suggest.js';
import { KIT_VERSION } from '../core/version.js';
import { EXIT, KitError } from '../core/types/errors.js';
const USAGE = `usage: pagi-conform <command> [options]

commands:
  run               run the conformance suites against a target (default: the embedded reference gateway)
  merge DIR…        merge the reports of the shards of a run (run --shard i/n) into one set of reports
  reproduce RESULTS CHECK[@operation]
                    run one check of a finished run again (same target, seed, profile) and print its outcome
  verify REPORT     tell whether an HTML report is untouched: its results, page digest and signature
  serve             start the reference gateway
  profile validate  check a vendor profile against the published profile schema
  profile migrate   rewrite a profile of an earlier format in the current one
  profile discover  draft a profile of a sandbox by probing it (values with their evidence, UNKNOWN where none)
  pact              Pact contracts: generate from the spec, verify a gateway, check a merchant's pact
  proxy             a validating proxy between your application and a gateway: each exchange judged, reports on stop
  selftest          run the suites against every fault and neutral variant of the reference gateway
  help              show this text
  --version, -v     print the kit's version (pagi-conform <version>)

'pagi-conform <command> --help' shows a command's options.`;

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run.js')).runMain,
  merge: async () => (await import('./merge.js')).mergeMain,
  verify: async () => (await import('./verify.js')).verifyMain,
  reproduce: async () => (await import('./reproduce.js')).reproduceMain,
  serve: async () => (await import('../gateway/cli.js')).serveMain,
  profile: async () => (await import('./profile.js')).profileMain,
  selftest: async () => (await import('./selftest.js')).selftestMain,
  pact: async () => (await import('./pact.js')).pactMain,
  proxy: async () => (await import('./proxy.js')).proxyMain,
};

/** Run the CLI with `argv` (without node and script) and return the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    console.log(`pagi-conform ${KIT_VERSION}`);
    return EXIT.ok;
  }
  const load = COMMANDS[name];
  if (!load) {
    const hint = didYouMean(name.replace(/^-+/, ''), [...Object.keys(COMMANDS), 'help', 'version'], (c) =>
      c === 'version' ? '--version' : c,
    );
    console.error(`pagi-conform: unknown command '${name}'${hint || '.'} Run 'pagi-conform help' for the list.`);
    return EXIT.usage;
  }
  try {
    return await (await load())(rest);
  } catch (error) {
    return failed(error);
  }
}

/**
 * Print what a command threw and give its exit code: a KitError's message (one sentence, on one line) and its
 * class's `exitCode`; any other error is the kit's own defect, printed with where it arose, exit 2.
 */
export function failed(error: unknown): number {
  if (error instanceof KitError) {
    console.error(`pagi-conform: ${error.message.replace(/\s*\n\s*/g, ' ')}`);
    return error.exitCode;
  }
  const e = error instanceof Error ? error : new Error(String(error));
  const at = e.stack
    ?.split('\n')
    .find((l) => /^\s+at /.test(l))
    ?.trim();
  console.error(
    `pagi-conform: the command failed on a defect of the kit (${e.message.split('\n')[0]}${at ? `, ${at}` : ''}); please report it with the command line.`,
  );
  return EXIT.usage;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
