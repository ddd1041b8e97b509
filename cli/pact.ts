/**
 * `pagi-conform pact generate|verify|check`: Pact contracts of the interface for integrators.
 * generate writes the pact generated from the spec; verify replays pacts against a gateway with Pact's own Verifier;
 * check validates a merchant's pact against the spec and the requirement catalogue, without any gateway.
 */
import fs from 'node:fs';
import path from 'node:path';
import { optionLines, parseCommandLine, readEnv } from '../core/config/load.js';
import { defaults, type Command, type RunOptions } from '../core/config/options.js';
import { EXIT, PactFileError, UsageError } from '../core/types/errors.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { didYouMean } from '../core/config/suggest.js';

/** What each `pact` command does, above its options (generated from the options table). */
const ABOUT: Record<'generate' | 'verify' | 'check', string> = {
  generate: `  pact generate [options]
      Write the Pact V4 file generated from the spec (consumer merchant, provider pagi-gateway) for the profile
      into the --out folder. Requests are signed with the sandbox's example secret.`,
  verify: `  pact verify --target URL [options]
      Replay the pact against the gateway at URL with Pact's Verifier. Provider states are made true through the
      interface, requests are re-signed with the merchant's secret (default credentials: the sandbox's,
      gateway/config.default.yaml). With --broker-url the pacts come from a Pact Broker instead.`,
  check: `  pact check FILE [options]
      Validate every interaction of a merchant's pact against the spec and the requirement catalogue: request and
      response shapes, limits, media types, the XML and HTML forms; every expectation the interface does not
      guarantee is a finding with its requirement id (or "not shown"). Reports as 'pagi-conform run' does.`,
};

const EXIT_CODES = `exit codes: 0 generated / verified / no failing finding, 1 verification failed / findings at or above --fail-on,
            2 usage error, unreadable pact or unreachable gateway.`;

/** The help of one `pact` command, or of all of them. */
function usage(sub?: keyof typeof ABOUT): string {
  const subs = sub ? [sub] : (Object.keys(ABOUT) as (keyof typeof ABOUT)[]);
  const parts = subs.map((s) => [ABOUT[s], '', 'options:', ...optionLines(`pact ${s}`)].join('\n'));
  return [
    'usage: pagi-conform pact <generate|verify|check> [options]',
    '',
    ...parts.flatMap((p) => [p, '']),
    EXIT_CODES,
  ].join('\n');
}

/** Pact files named by `--pact`: a file, or every `.json` file of a folder. */
function pactFiles(where: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(where);
  } catch {
    throw new UsageError(`No pact file or folder ${where}; check --pact.`);
  }
  if (stat.isFile()) return [path.resolve(where)];
  const files = fs
    .readdirSync(where)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.resolve(where, f));
  if (!files.length) throw new UsageError(`The folder ${where} holds no .json pact file; check --pact.`);
  return files;
}

async function generate(values: RunOptions): Promise<number> {
  const { writePact } = await import('../pact/interactions.js');
  const file = writePact(values.pactOut!, { profile: values.profile });
  console.log(`pact written: ${path.relative(process.cwd(), file) || file}`);
  return EXIT.ok;
}

/** ANSI escape sequences (colours, cursor movements) as Pact's native core writes them. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[ -/]*[@-~]`, 'g');

/**
 * Whether output written to a stream may keep its colours: not when NO_COLOR is set (https://no-color.org), and not
 * when the stream is no terminal (a file, a pipe, a CI log) unless FORCE_COLOR asks for them.
 */
export function keepsColours(env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return Boolean(isTTY);
}

/** A line of the Verifier's output as it is written out: colours dropped unless the stream keeps them. */
export function outputLine(line: string, colours: boolean): string {
  return colours ? line : line.replace(ANSI, '');
}

/**
 * Run the verification in a child process whose output is masked line by line: Pact's native core prints the bodies
 * a gateway answered straight to the process's stdout, where the kit cannot mask them otherwise.
 */
async function maskedChild(argv: string[], values: RunOptions): Promise<number> {
  const { spawn } = await import('node:child_process');
  const { createInterface } = await import('node:readline');
  const { maskText } = await import('../core/mask.js');
  const { loadProfile } = await import('../core/profile/load.js');
  const { sandboxCredentials } = await import('../pact/interactions.js');
  const profile = loadProfile(values.profile).profile;
  const secret: string = values.secret ?? sandboxCredentials().secret;
  const rules = {
    secrets: [secret],
    cards: [...profile.payments.testCards.approve, ...profile.payments.testCards.decline],
    fields: [profile.fields.card.number, profile.fields.card.securityCode],
  };
  const entry = path.join(KIT_ROOT, 'bin', 'pagi-conform.js');
  // Pact's native core colours its report whatever NO_COLOR says: the colours are dropped here, line by line.
  const colours = {
    out: keepsColours(process.env, process.stdout.isTTY),
    err: keepsColours(process.env, process.stderr.isTTY),
  };
  const child = spawn(process.execPath, [entry, 'pact', ...argv], {
    env: { ...process.env, PAGI_PACT_VERIFY_CHILD: '1', ...(colours.out ? {} : { NO_COLOR: '1' }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pipe = (from: NodeJS.ReadableStream, to: NodeJS.WritableStream, keep: boolean) =>
    new Promise<void>((resolve) =>
      createInterface({ input: from, crlfDelay: Infinity })
        .on('line', (line) => to.write(`${maskText(outputLine(line, keep), rules)}\n`))
        .on('close', resolve),
    );
  const done = Promise.all([
    pipe(child.stdout!, process.stdout, colours.out),
    pipe(child.stderr!, process.stderr, colours.err),
  ]);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 2)));
  await done;
  return code;
}

async function verify(values: RunOptions, argv: string[] = []): Promise<number> {
  if (!process.env.PAGI_PACT_VERIFY_CHILD) return maskedChild(argv, values);
  const brokerUrl = values.brokerUrl;
  if (!values.target)
    throw new UsageError("Name the gateway to verify with --target URL; 'pagi-conform pact --help' shows how.");
  if (values.publish && !values.providerVersion)
    throw new UsageError('--publish needs --provider-version: name the version of the gateway the results are for.');
  const { kitSpec } = await import('../core/spec/load.js');
  const { loadProfile } = await import('../core/profile/load.js');
  const { sandboxCredentials, writePact } = await import('../pact/interactions.js');
  const { verifyPact } = await import('../pact/verify.js');
  const profileName = values.profile;
  const profile = loadProfile(profileName).profile;
  let files: string[] = [];
  let temporary: string | undefined;
  if (!brokerUrl) {
    if (values.pact) files = pactFiles(values.pact);
    else {
      temporary = fs.mkdtempSync(path.join(fs.realpathSync((await import('node:os')).tmpdir()), 'pagi-pact-'));
      files = [writePact(temporary, { profile: profileName })];
    }
  }
  const sandbox = sandboxCredentials();
  try {
    const outcome = await verifyPact({
      target: values.target,
      pactUrls: files,
      spec: kitSpec(),
      profile,
      merchantId: values.merchantId ?? sandbox.merchantId,
      accountId: values.accountId ?? sandbox.accountId,
      secret: values.secret ?? sandbox.secret,
      cardSecurityCode: values.cardSecurityCode,
      unknownPaymentMethod: values.unknownPaymentMethod!,
      logLevel: values.logLevel!,
      ...(brokerUrl
        ? {
            broker: {
              url: brokerUrl,
              token: values.brokerToken,
              publish: Boolean(values.publish),
              providerVersion: values.providerVersion,
              providerBranch: values.providerBranch,
            },
          }
        : {}),
    });
    console.log('');
    if (outcome.ok) {
      console.log(`pact verify: all interactions verified against ${values.target}`);
      return EXIT.ok;
    }
    const loading = outcome.mismatches.filter((m) => /^Failed to load pact/.test(m.interaction));
    if (loading.length && loading.length === outcome.mismatches.length) {
      // A set-up failure (broker or pact file unreachable), not a verdict on the gateway.
      throw new PactFileError(
        `pact verify could not load the pacts: ${loading[0]!.message.split('\n')[0]!.slice(0, 300)}; check --pact or --broker-url.`,
      );
    }
    console.log(
      `pact verify: ${new Set(outcome.mismatches.map((m) => m.interaction)).size} interaction(s) failed against ${values.target}:`,
    );
    for (const m of outcome.mismatches)
      console.log(
        `  - ${m.interaction.replace(/^Verifying a pact between \S+ and \S+ (- )?/, '')}: ${m.kind}${m.path ? ` ${m.path}` : ''}: ${m.message.split('\n')[0]!.slice(0, 300)}`,
      );
    return EXIT.failed;
  } finally {
    if (temporary) fs.rmSync(temporary, { recursive: true, force: true });
  }
}

async function check(values: RunOptions, positionals: string[]): Promise<number> {
  if (positionals.length !== 1) throw new UsageError("Name one pact file: 'pagi-conform pact check FILE'.");
  const failOn = values.failOn;
  const { readPactFile, checkPact, reportCheck } = await import('../pact/check.js');
  const pact = readPactFile(positionals[0]!);
  const result = checkPact(pact, {
    profile: values.profile,
    failOn,
    file: positionals[0]!,
    commandLine: ['pagi-conform', 'pact', 'check', ...process.argv.slice(4)],
  });
  const reporters = values.reporter;
  const { createReporters } = await import('../reporters/index.js');
  await reportCheck(result, {
    out: values.out,
    reporters: createReporters({ reporter: reporters, signKey: undefined }),
  });
  return result.exitCode === EXIT.inconclusive ? EXIT.ok : result.exitCode;
}

/** The commands of `pact`. */
const SUBCOMMANDS = ['generate', 'verify', 'check'] as const;

/**
 * A `pact` command's options from the options table: its flags, the environment variables of its rows (the
 * credentials, the Pact Broker's), then the rows' defaults.
 */
function optionsOf(command: Command, argv: string[]): { values: RunOptions; positionals: string[] } {
  const { options, positionals } = parseCommandLine(command, argv, command === 'pact check');
  const fromEnv = readEnv(process.env, command);
  return { values: { ...defaults(command), ...fromEnv, ...options } as RunOptions, positionals };
}

/** Run `pact` with its arguments; returns the exit code. */
export async function pactMain(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === 'help' || sub === '--help' || sub === '-h') {
    console.log(usage());
    return sub ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub))
    throw new UsageError(
      `Unknown pact command '${sub}'${didYouMean(sub, SUBCOMMANDS, (c) => `pact ${c}`) || '.'} The commands are pact generate, pact verify and pact check.`,
    );
  const name = sub as (typeof SUBCOMMANDS)[number];
  if (rest.includes('-h')) {
    console.log(usage(name));
    return EXIT.ok;
  }
  const { values, positionals } = optionsOf(`pact ${name}`, rest);
  if (values.help) {
    console.log(usage(name));
    return EXIT.ok;
  }
  if (name === 'generate') return await generate(values);
  if (name === 'verify') return await verify(values, argv);
  return await check(values, positionals);
}
