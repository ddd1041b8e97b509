/**
 * `pagi-conform pact generate|verify|check`: Pact contracts of the interface for integrators.
 * generate writes the pact generated from the spec; verify replays pacts against a gateway with Pact's own Verifier;
 * check validates a merchant's pact against the spec and the requirement catalogue, without any gateway.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../types/errors.js';
import { DOCUMENT_LEVELS } from '../run-result.js';

const USAGE = `usage: pagi-conform pact <generate|verify|check> [options]

  pact generate [--profile P] [--out DIR]
      Write the Pact V4 file generated from the spec (consumer merchant, provider pagi-gateway) for the profile
      (default reference) into DIR (default pacts/). Requests are signed with the sandbox's example secret.

  pact verify --target URL [--pact FILE|DIR] [--profile P]
      Replay the pact (default: the generated pact of the profile, written to a temporary folder) against the
      gateway at URL with Pact's Verifier. Provider states are made true through the interface, requests are
      re-signed with the merchant's secret. Credentials: --merchant-id, --account-id, --secret or PAGI_MERCHANT_ID,
      PAGI_ACCOUNT_ID, PAGI_SECRET (default: the sandbox's, gateway/config.default.yaml).
      --broker-url URL [--broker-token T] [--publish --provider-version V [--provider-branch B]]: take the pacts
      from a Pact Broker instead (PACT_BROKER_BASE_URL, PACT_BROKER_TOKEN).

  pact check FILE [--profile P] [--out DIR] [--reporter LIST] [--fail-on LEVEL]
      Validate every interaction of a merchant's pact against the spec and the requirement catalogue: request and
      response shapes, limits, media types, the XML and HTML forms; every expectation the interface does not
      guarantee is a finding with its requirement id (or "not shown"). Reports as 'pagi-conform run' does.

exit codes: 0 generated / verified / no failing finding, 1 verification failed / findings at or above --fail-on,
            2 usage error, unreadable pact or unreachable gateway.`;

const OPTIONS = {
  profile: { type: 'string' },
  out: { type: 'string' },
  target: { type: 'string' },
  pact: { type: 'string' },
  'merchant-id': { type: 'string' },
  'account-id': { type: 'string' },
  secret: { type: 'string' },
  'card-security-code': { type: 'string' },
  'unknown-payment-method': { type: 'string' },
  'broker-url': { type: 'string' },
  'broker-token': { type: 'string' },
  publish: { type: 'boolean' },
  'provider-version': { type: 'string' },
  'provider-branch': { type: 'string' },
  reporter: { type: 'string' },
  'fail-on': { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Pact files named by `--pact`: a file, or every `.json` file of a folder. */
function pactFiles(where: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(where);
  } catch {
    throw new UsageError(`no pact file or folder ${where}`);
  }
  if (stat.isFile()) return [path.resolve(where)];
  const files = fs
    .readdirSync(where)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.resolve(where, f));
  if (!files.length) throw new UsageError(`the folder ${where} holds no .json pact file`);
  return files;
}

async function generate(values: Record<string, any>): Promise<number> {
  const { writePact } = await import('../pact/interactions.js');
  const file = writePact(values.out ?? 'pacts', { profile: values.profile ?? 'reference' });
  console.log(`pact written: ${path.relative(process.cwd(), file) || file}`);
  return EXIT.ok;
}

/**
 * Run the verification in a child process whose output is masked line by line: Pact's native core prints the bodies
 * a gateway answered straight to the process's stdout, where the kit cannot mask them otherwise.
 */
async function maskedChild(argv: string[], values: Record<string, any>): Promise<number> {
  const { spawn } = await import('node:child_process');
  const { createInterface } = await import('node:readline');
  const { maskText } = await import('../mask.js');
  const { loadProfile } = await import('../profile/load.js');
  const { sandboxCredentials } = await import('../pact/interactions.js');
  const profile = loadProfile(values.profile ?? 'reference').profile;
  const secret: string = values.secret ?? process.env.PAGI_SECRET ?? sandboxCredentials().secret;
  const rules = {
    secrets: [secret],
    cards: [...profile.payments.testCards.approve, ...profile.payments.testCards.decline],
    fields: [profile.fields.card.number, profile.fields.card.securityCode],
  };
  const entry = fileURLToPath(new URL('../../bin/pagi-conform.js', import.meta.url));
  const child = spawn(process.execPath, [entry, 'pact', ...argv], {
    env: { ...process.env, PAGI_PACT_VERIFY_CHILD: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pipe = (from: NodeJS.ReadableStream, to: NodeJS.WritableStream) =>
    new Promise<void>((resolve) =>
      createInterface({ input: from, crlfDelay: Infinity })
        .on('line', (line) => to.write(`${maskText(line, rules)}\n`))
        .on('close', resolve),
    );
  const done = Promise.all([pipe(child.stdout!, process.stdout), pipe(child.stderr!, process.stderr)]);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 2)));
  await done;
  return code;
}

async function verify(values: Record<string, any>, argv: string[] = []): Promise<number> {
  if (!process.env.PAGI_PACT_VERIFY_CHILD) return maskedChild(argv, values);
  const brokerUrl: string | undefined = values['broker-url'] ?? process.env.PACT_BROKER_BASE_URL;
  if (!values.target) throw new UsageError('name the gateway to verify with --target URL');
  let target: URL;
  try {
    target = new URL(values.target);
  } catch {
    throw new UsageError(`--target must be an absolute http(s) URL, not '${values.target}'`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new UsageError(`--target must be an http or https URL, not '${values.target}'`);
  if (values.publish && !values['provider-version']) throw new UsageError('--publish needs --provider-version');
  const { kitSpec } = await import('../spec/load.js');
  const { loadProfile } = await import('../profile/load.js');
  const { sandboxCredentials, writePact } = await import('../pact/interactions.js');
  const { verifyPact } = await import('../pact/verify.js');
  const profileName: string = values.profile ?? 'reference';
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
      target: values.target.replace(/\/+$/, ''),
      pactUrls: files,
      spec: kitSpec(),
      profile,
      merchantId: values['merchant-id'] ?? process.env.PAGI_MERCHANT_ID ?? sandbox.merchantId,
      accountId: values['account-id'] ?? process.env.PAGI_ACCOUNT_ID ?? sandbox.accountId,
      secret: values.secret ?? process.env.PAGI_SECRET ?? sandbox.secret,
      cardSecurityCode: values['card-security-code'] ?? '123',
      unknownPaymentMethod: values['unknown-payment-method'] ?? 'PAGI_KIT_UNKNOWN',
      logLevel: values['log-level'] ?? 'error',
      ...(brokerUrl
        ? {
            broker: {
              url: brokerUrl,
              token: values['broker-token'] ?? process.env.PACT_BROKER_TOKEN,
              publish: Boolean(values.publish),
              providerVersion: values['provider-version'],
              providerBranch: values['provider-branch'],
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
      console.error(
        `pagi-conform pact verify: could not load the pacts: ${loading[0]!.message.split('\n')[0]!.slice(0, 300)}`,
      );
      return EXIT.usage;
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

async function check(values: Record<string, any>, positionals: string[]): Promise<number> {
  if (positionals.length !== 1) throw new UsageError("name one pact file: 'pagi-conform pact check FILE'");
  const failOn = values['fail-on'] ?? 'must';
  if (!(DOCUMENT_LEVELS as readonly string[]).includes(failOn))
    throw new UsageError(
      `--fail-on must be ${DOCUMENT_LEVELS.slice(0, -1).join(', ')} or ${DOCUMENT_LEVELS.at(-1)}, not '${failOn}'`,
    );
  const { readPactFile, checkPact, reportCheck } = await import('../pact/check.js');
  let pact: ReturnType<typeof readPactFile>;
  try {
    pact = readPactFile(positionals[0]!);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const result = checkPact(pact, {
    profile: values.profile ?? 'reference',
    failOn,
    file: positionals[0]!,
    commandLine: ['pagi-conform', 'pact', 'check', ...process.argv.slice(4)],
  });
  const reporters = (values.reporter ?? 'console,json')
    .split(',')
    .map((s: string) => s.trim())
    .filter(Boolean);
  const { createReporters } = await import('../../reporters/index.js');
  await reportCheck(result, {
    out: values.out ?? 'reports',
    reporters: createReporters({ reporter: reporters, signKey: undefined }),
  });
  return result.exitCode === EXIT.inconclusive ? EXIT.ok : result.exitCode;
}

/** Run `pact` with its arguments; returns the exit code. */
export async function pactMain(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === 'help' || sub === '--help' || sub === '-h') {
    console.log(USAGE);
    return sub ? 0 : 2;
  }
  try {
    const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: true });
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    if (sub === 'generate') return await generate(values);
    if (sub === 'verify') return await verify(values, argv);
    if (sub === 'check') return await check(values, positionals);
    throw new UsageError(`unknown pact command '${sub}'; use generate, verify or check`);
  } catch (e) {
    const message = (e as Error).message.split('\n')[0];
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`pagi-conform pact: ${message}; run 'pagi-conform pact --help' for the options.`);
      return EXIT.usage;
    }
    console.error(`pagi-conform pact ${sub}: ${message}`);
    return EXIT.usage;
  }
}
