/**
 * The one table of options: every `pagi-conform run` (and `merge`, `verify`, `profile migrate`, `profile discover`) flag and every
 * config-file key is defined here once (name, type, default, environment variable, description). The argv parser, the config-file reader, the
 * environment reader and `--help` are generated from it (core/config/load.ts).
 */

/** Lowest severity that makes a run NOT CONFORMANT: a document level. */
export type FailOn = DocumentLevel;

/** Resolved options of a run (CLI flags, config file, environment and defaults merged). */
export interface RunOptions {
  target?: string;
  config?: string;
  profile: string;
  only: string[];
  skip: string[];
  failOn: FailOn;
  waivers?: string;
  out: string;
  reporter: string[];
  seed?: number;
  /** Generated valid and invalid requests per operation of the deep family (0: not run). */
  depth: number;
  list: boolean;
  /** Output of `--list`: text (default) or json. */
  format?: 'text' | 'json';
  shard?: string;
  concurrency: number;
  rate: number;
  timeout: number;
  maxResponseBytes: number;
  orderPrefix: string;
  caFile?: string;
  proxy?: string;
  notifyUrl?: string;
  notifyWait: number;
  notifyListen: string;
  specRoot?: string;
  registry?: string;
  cards?: Record<string, string>;
  cardSecurityCode: string;
  paymentMethods?: PaymentMethodsConfig;
  unregisteredAddress?: string;
  merchantId?: string;
  accountId?: string;
  secret?: string;
  /** Ed25519 private key file (PEM) that signs report.html. */
  signKey?: string;
  /** Ed25519 public key file (PEM) a report's signature is verified with (`verify` only). */
  publicKey?: string;
  /** Hosts besides the target's origin the kit may request (an issuer page's host, ...). */
  allowedHosts: string[];
  /** What the target is: `sandbox` lets a non-loopback target take payments, captures, refunds and payouts. */
  environment?: 'sandbox' | 'live';
  /** Run against a non-loopback target that is not declared a sandbox. */
  allowLive: boolean;
  /** File `profile migrate` writes the migrated profile to (absent: standard output). */
  profileOut?: string;
  /** The vendor's partial profile `profile discover` starts from: each point it states is confirmed by the probes. */
  discoverFrom?: string;
  /** Folder `pact generate` writes the pact to. */
  pactOut?: string;
  /** Pact file, or folder of pact files, `pact verify` replays (absent: the generated pact of the profile). */
  pact?: string;
  /** Pact Broker `pact verify` takes the pacts from. */
  brokerUrl?: string;
  /** Token of the Pact Broker. */
  brokerToken?: string;
  /** Publish the verification results to the Pact Broker. */
  publish?: boolean;
  /** Version of the gateway the verification results are published for. */
  providerVersion?: string;
  /** Branch of the gateway the verification results are published for. */
  providerBranch?: string;
  /** Log level of Pact's Verifier. */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  /** APM payment_method a provider state sends as unknown to the gateway (`pact verify`). */
  unknownPaymentMethod?: string;
  /** Gateway `proxy` forwards to (absent: the embedded reference gateway). */
  upstream?: string;
  /** Port `proxy` listens on (loopback). */
  proxyPort: number;
  /** `proxy` rewrites notify_url to its own receiver, judges each notification and forwards it. */
  notify: boolean;
  /** Hosts besides loopback `proxy --notify` forwards notifications to. */
  notifyHosts: string[];
  /** Pact V4 file `proxy` writes the observed interactions to when it stops. */
  proxyPact?: string;
  help: boolean;
}

/** The commands whose flags and keys the table defines. */
export type Command =
  | 'run'
  | 'merge'
  | 'verify'
  | 'profile migrate'
  | 'profile discover'
  | 'pact generate'
  | 'pact verify'
  | 'pact check'
  | 'proxy';

export { UsageError } from '../types/errors.js';
import { DOCUMENT_LEVELS, type DocumentLevel } from '../run-result.js';
import {
  type PaymentMethodsConfig,
  type ValueType,
  flag,
  hostPort,
  integer,
  list,
  oneOf,
  paymentMethods,
  shard,
  stringMap,
  text,
  url,
} from './values.js';

export { type PaymentMethodsConfig, type ValueType, flag, integer, list, seconds, text } from './values.js';

/** One row of the table. */
export interface OptionDef<K extends keyof RunOptions = keyof RunOptions> {
  key: K;
  /** CLI flag without `--`; absent for config-file-only keys. */
  flag?: string;
  /** Commands whose command line takes the flag (default: every command of the row); the others read the key only. */
  flagCommands?: readonly Command[];
  type: ValueType<NonNullable<RunOptions[K]>>;
  default?: RunOptions[K];
  /** A command's own default, instead of `default` (`pact check` writes its reports to `reports/pact`). */
  defaultByCommand?: Partial<Record<Command, RunOptions[K]>>;
  env?: string;
  /** False for keys that make no sense in a config file (`config`, `help`, `list`). */
  configFile?: boolean;
  /** Masked in results metadata and never printed. */
  secret?: boolean;
  /** Commands taking the option (default: `run` only). */
  commands?: readonly Command[];
  /** Whether the option changes what a run checks; false for where and how it reports (left out of the config digest). */
  affectsResults?: boolean;
  description: string;
}

/** Typed row constructor: ties the value type and the default to the option's key. */
function opt<const K extends keyof RunOptions>(def: OptionDef<K>): OptionDef<K> {
  return def;
}

/** Every run option. Order = order in `--help`. */
export const OPTIONS = [
  opt({
    key: 'target',
    commands: ['run', 'profile discover', 'pact verify'],
    flag: 'target',
    type: url,
    env: 'PAGI_TARGET',
    description:
      'Base URL of the gateway under test (default: the embedded reference gateway on an ephemeral loopback port).',
  }),
  opt({
    key: 'config',
    commands: ['run', 'profile discover', 'proxy'],
    flag: 'config',
    type: text('FILE', true),
    env: 'PAGI_CONFIG',
    configFile: false,
    affectsResults: false,
    description: 'YAML config file holding any key of this table (camelCase) plus the config-file-only keys.',
  }),
  opt({
    key: 'profile',
    commands: ['run', 'pact generate', 'pact verify', 'pact check', 'proxy'],
    flag: 'profile',
    type: text('FILE', true),
    default: 'reference',
    description:
      "Profile of the target: a file, or a name under spec/profiles ('reference'). A profile of an earlier format is migrated in memory, with one deprecation line ('pagi-conform profile migrate' rewrites it).",
  }),
  opt({
    key: 'only',
    flag: 'only',
    type: list,
    default: [],
    description:
      'Run only these checks: family, check id, operation, requirement id or operation/checkId, comma-separated.',
  }),
  opt({
    key: 'skip',
    flag: 'skip',
    type: list,
    default: [],
    description: 'Skip these checks (same selectors as --only).',
  }),
  opt({
    key: 'failOn',
    commands: ['run', 'pact check', 'proxy'],
    flag: 'fail-on',
    type: oneOf(DOCUMENT_LEVELS),
    default: 'must',
    description:
      'Lowest document level of a failed check that makes the run NOT CONFORMANT (failures below it are warnings); a broken payment-integrity invariant fails the run whatever it says.',
  }),
  opt({
    key: 'waivers',
    flag: 'waivers',
    type: text('FILE', true),
    description:
      'YAML list of {check, reason, expires: YYYY-MM-DD[, operation]}: named failures become waived until they expire.',
  }),
  opt({
    key: 'out',
    flag: 'out',
    type: text('DIR'),
    default: 'reports',
    // Each command's report set in a folder of its own: a pact check never lands beside a run's reports.
    defaultByCommand: { 'pact check': 'reports/pact', proxy: 'reports/proxy' },
    commands: ['run', 'merge', 'pact check', 'proxy'],
    affectsResults: false,
    description:
      'Folder the reports are written to; the report files of an earlier run there that this run does not write are removed.',
  }),
  opt({
    key: 'reporter',
    flag: 'reporter',
    type: list,
    default: ['console', 'json'],
    commands: ['run', 'merge', 'pact check', 'proxy'],
    affectsResults: false,
    description:
      'Reporters, comma-separated: console (progress, summary, verdict), json (results.json), junit (junit.xml), markdown (summary.md), har (exchanges.har), html (report.html, the certification report).',
  }),
  opt({
    key: 'signKey',
    flag: 'sign-key',
    type: text('FILE', true),
    env: 'PAGI_SIGN_KEY',
    commands: ['run', 'merge'],
    affectsResults: false,
    description:
      "Ed25519 private key (PEM) that signs report.html, so 'pagi-conform verify' can tell an untouched report from an edited one (turns the html reporter on).",
  }),
  opt({
    key: 'publicKey',
    flag: 'public-key',
    type: text('FILE', true),
    commands: ['verify'],
    configFile: false,
    description:
      'Ed25519 public key (PEM) the report must be signed with (default: the key embedded in the report, which shows it is intact but not who signed it).',
  }),
  opt({
    key: 'seed',
    flag: 'seed',
    type: integer('N', 0),
    description: 'Seed of the generated negative cases (default: random, recorded in the results).',
  }),
  opt({
    key: 'depth',
    flag: 'depth',
    type: integer('N', 0),
    default: 0,
    description:
      'Deep family: per operation, N generated requests valid for the spec and the profile and N breaking one rule, failures shrunk to a minimal request (0: the family is not run).',
  }),
  opt({
    key: 'list',
    flag: 'list',
    type: flag,
    default: false,
    configFile: false,
    affectsResults: false,
    description:
      'Print the selected checks (--only/--skip apply) with their operations, family and requirement ids, then exit.',
  }),
  opt({
    key: 'format',
    flag: 'format',
    type: oneOf(['text', 'json'] as const),
    configFile: false,
    affectsResults: false,
    description: 'Output of --list: text (default) or json (one JSON object per check, one per line).',
  }),
  opt({
    key: 'shard',
    flag: 'shard',
    type: shard,
    affectsResults: false,
    description: "Run shard i of n of the suite files (vitest's shard option).",
  }),
  opt({
    key: 'concurrency',
    commands: ['run', 'profile discover'],
    flag: 'concurrency',
    type: integer('N', 1),
    default: 4,
    description: 'Most tests run at once, and most requests in flight at once.',
  }),
  opt({
    key: 'rate',
    commands: ['run', 'profile discover'],
    flag: 'rate',
    type: integer('N', 0),
    default: 0,
    description: 'Most requests per second sent to the target (0: no limit).',
  }),
  opt({
    key: 'timeout',
    commands: ['run', 'profile discover', 'proxy'],
    flag: 'timeout',
    type: integer('MS', 1),
    default: 10_000,
    description: 'Per-request timeout in milliseconds.',
  }),
  opt({
    key: 'maxResponseBytes',
    commands: ['run', 'profile discover', 'proxy'],
    flag: 'max-response-bytes',
    type: integer('BYTES', 1),
    default: 8 * 1024 * 1024,
    description: 'Response size cap: reading stops past it and the response is marked truncated.',
  }),
  opt({
    key: 'orderPrefix',
    commands: ['run', 'profile discover'],
    flag: 'order-prefix',
    type: text('TEXT'),
    default: 'PAGI',
    description:
      "Prefix of every order_no the kit sends; a run id and a counter follow it, so a run's order numbers are unique.",
  }),
  opt({
    key: 'caFile',
    commands: ['run', 'profile discover'],
    flag: 'ca-file',
    type: text('FILE', true),
    description: "PEM file of the CA that signs the target's TLS certificate.",
  }),
  opt({
    key: 'allowedHosts',
    flag: 'allowed-hosts',
    type: list,
    default: [],
    description:
      "Hosts the kit may request besides the target's origin, comma-separated: host, host:port, *.domain or an IP address (e.g. the sandbox's issuer pages). Any other URL the target hands over is reported, never requested; an internal address (loopback, private, link-local, metadata) is refused unless listed.",
  }),
  opt({
    key: 'environment',
    commands: ['run', 'profile discover'],
    flag: 'environment',
    type: oneOf(['sandbox', 'live'] as const),
    env: 'PAGI_ENVIRONMENT',
    description:
      'What the target is. A run makes payments, captures, refunds and payouts: against a target that is not loopback it runs only when this is sandbox, or with --allow-live.',
  }),
  opt({
    key: 'allowLive',
    commands: ['run', 'profile discover'],
    flag: 'allow-live',
    type: flag,
    default: false,
    configFile: false,
    affectsResults: false,
    description:
      'Run against a target that is neither loopback nor declared environment: sandbox (a live gateway: real money moves).',
  }),
  opt({
    key: 'proxy',
    commands: ['run', 'profile discover'],
    flag: 'proxy',
    type: url,
    env: 'PAGI_PROXY',
    description: 'HTTP proxy the requests go through.',
  }),
  opt({
    key: 'notifyUrl',
    commands: ['run', 'profile discover'],
    flag: 'notify-url',
    type: url,
    description:
      "Public URL of the kit's notification receiver, for a remote target (default on a loopback target: the receiver's own loopback URL; none otherwise, and the events family is skipped).",
  }),
  opt({
    key: 'notifyWait',
    flag: 'notify-wait',
    type: integer('MS', 0),
    default: 10_000,
    description: 'How long to wait for a notification, in milliseconds.',
  }),
  opt({
    key: 'notifyListen',
    commands: ['run', 'profile discover'],
    flag: 'notify-listen',
    type: hostPort,
    default: '127.0.0.1:8787',
    description:
      'Address the notification receiver listens on when --notify-url is given (a tunnel or proxy forwards the public URL to it).',
  }),
  opt({
    key: 'specRoot',
    flag: 'spec-root',
    type: text('DIR', true),
    description: "Folder holding spec/ and schemas/ to generate the suites from (default: the kit's own).",
  }),
  opt({
    key: 'registry',
    flag: 'registry',
    type: text('FILE', true),
    description:
      'Module exporting CHECKS and PROBES, and optionally RULES (default: suites/registry.ts; without RULES, those of the engine).',
  }),
  opt({
    key: 'cards',
    commands: ['run', 'profile discover'],
    type: stringMap,
    description: "Test card numbers by outcome (approve, decline) (default: the profile's payments.testCards).",
  }),
  opt({
    key: 'cardSecurityCode',
    commands: ['run', 'profile discover', 'pact verify'],
    flag: 'card-security-code',
    flagCommands: ['pact verify'],
    type: text('CODE'),
    default: '123',
    description: 'Security code sent with the test cards.',
  }),
  opt({
    key: 'paymentMethods',
    commands: ['run', 'profile discover'],
    type: paymentMethods,
    description:
      "APM payment_method values: valid (list) and one unknown to the target (default: the spec example's value and PAGI_KIT_UNKNOWN).",
  }),
  opt({
    key: 'unregisteredAddress',
    commands: ['run', 'profile discover'],
    type: text('ADDRESS'),
    description:
      'Second local source address, not registered with the target, for the refused-query check (default on a loopback target: 127.0.0.2).',
  }),
  opt({
    key: 'merchantId',
    commands: ['run', 'profile discover', 'pact verify', 'proxy'],
    flag: 'merchant-id',
    flagCommands: ['pact verify'],
    type: text('ID'),
    env: 'PAGI_MERCHANT_ID',
    description: "merchant_id of the test account (default with no --target: the reference gateway's).",
  }),
  opt({
    key: 'accountId',
    commands: ['run', 'profile discover', 'pact verify', 'proxy'],
    flag: 'account-id',
    flagCommands: ['pact verify'],
    type: text('ID'),
    env: 'PAGI_ACCOUNT_ID',
    description: "account_id of the test account (default with no --target: the reference gateway's).",
  }),
  opt({
    key: 'secret',
    commands: ['run', 'profile discover', 'pact verify', 'proxy'],
    flag: 'secret',
    flagCommands: ['pact verify'],
    type: text('SECRET'),
    env: 'PAGI_SECRET',
    secret: true,
    description: "Signing secret of the test account (default with no --target: the reference gateway's).",
  }),
  opt({
    key: 'profileOut',
    flag: 'out',
    type: text('FILE', true),
    configFile: false,
    commands: ['profile migrate', 'profile discover'],
    affectsResults: false,
    description:
      'File the migrated profile is written to (it may be the profile itself), or the draft profile discover writes; absent: standard output, and what the command says goes to standard error.',
  }),
  opt({
    key: 'discoverFrom',
    flag: 'from',
    type: text('FILE', true),
    configFile: false,
    commands: ['profile discover'],
    affectsResults: false,
    description:
      'A profile (format 6 may leave any point out) stating what you know of your gateway: its card fields, signature recipe, status values, error catalogue, ... Its points seed the probes; each is confirmed by them, and one the gateway contradicts is printed with its evidence (exit 1); the draft keeps your value.',
  }),
  opt({
    key: 'pactOut',
    flag: 'out',
    type: text('DIR'),
    default: 'pacts',
    configFile: false,
    commands: ['pact generate'],
    affectsResults: false,
    description: 'Folder the generated pact is written to.',
  }),
  opt({
    key: 'pact',
    flag: 'pact',
    type: text('FILE|DIR'),
    configFile: false,
    commands: ['pact verify'],
    description:
      'Pact file, or folder of .json pact files, to replay (default: the generated pact of the profile, written to a temporary folder).',
  }),
  opt({
    key: 'brokerUrl',
    flag: 'broker-url',
    type: url,
    env: 'PACT_BROKER_BASE_URL',
    configFile: false,
    commands: ['pact verify'],
    description: 'Pact Broker to take the pacts from instead of files.',
  }),
  opt({
    key: 'brokerToken',
    flag: 'broker-token',
    type: text('TOKEN'),
    env: 'PACT_BROKER_TOKEN',
    configFile: false,
    secret: true,
    commands: ['pact verify'],
    description: 'Token of the Pact Broker.',
  }),
  opt({
    key: 'publish',
    flag: 'publish',
    type: flag,
    default: false,
    configFile: false,
    commands: ['pact verify'],
    description: 'Publish the verification results to the Pact Broker (needs --provider-version).',
  }),
  opt({
    key: 'providerVersion',
    flag: 'provider-version',
    type: text('VERSION'),
    configFile: false,
    commands: ['pact verify'],
    description: 'Version of the gateway the published results are for.',
  }),
  opt({
    key: 'providerBranch',
    flag: 'provider-branch',
    type: text('BRANCH'),
    configFile: false,
    commands: ['pact verify'],
    description: 'Branch of the gateway the published results are for.',
  }),
  opt({
    key: 'unknownPaymentMethod',
    flag: 'unknown-payment-method',
    type: text('METHOD'),
    default: 'PAGI_KIT_UNKNOWN',
    configFile: false,
    commands: ['pact verify'],
    description: 'APM payment_method the provider states send as one the gateway does not know.',
  }),
  opt({
    key: 'logLevel',
    flag: 'log-level',
    type: oneOf(['trace', 'debug', 'info', 'warn', 'error'] as const),
    default: 'error',
    configFile: false,
    commands: ['pact verify'],
    affectsResults: false,
    description: "Log level of Pact's Verifier.",
  }),
  opt({
    key: 'upstream',
    flag: 'upstream',
    type: url,
    env: 'PAGI_UPSTREAM',
    commands: ['proxy'],
    description:
      'Gateway the proxy forwards every request to, unchanged, and no other (default: the embedded reference gateway on an ephemeral loopback port).',
  }),
  opt({
    key: 'proxyPort',
    flag: 'port',
    type: integer('N', 0, 65535),
    default: 8081,
    commands: ['proxy'],
    affectsResults: false,
    description: "Loopback port the proxy listens on (0: a free one); point the merchant application's base URL at it.",
  }),
  opt({
    key: 'notify',
    flag: 'notify',
    type: flag,
    default: false,
    commands: ['proxy'],
    description:
      "Rewrite each request's notify_url to the proxy's own receiver, judge each notification and forward it to the original URL (loopback, or a host of notifyHosts; any other is left unrewritten).",
  }),
  opt({
    key: 'notifyHosts',
    flag: 'notify-hosts',
    type: list,
    default: [],
    commands: ['proxy'],
    description:
      'Hosts besides loopback the proxy forwards notifications to, comma-separated (host or host:port); a notify_url on any other host is not rewritten.',
  }),
  opt({
    key: 'proxyPact',
    flag: 'pact',
    type: text('FILE', true),
    configFile: false,
    commands: ['proxy'],
    affectsResults: false,
    description:
      "Pact V4 file the proxy writes on stop: the observed interactions with a clean request and a 200 answer, each expecting what the interface guarantees ('pagi-conform pact check' accepts it).",
  }),
  opt({
    key: 'help',
    flag: 'help',
    type: flag,
    default: false,
    configFile: false,
    commands: [
      'run',
      'merge',
      'verify',
      'profile migrate',
      'profile discover',
      'pact generate',
      'pact verify',
      'pact check',
      'proxy',
    ],
    affectsResults: false,
    description: 'Show this text.',
  }),
] as const satisfies readonly OptionDef<any>[];

/** Every key of RunOptions has a row: a key without one is a compile error here. */
type MissingRows = Exclude<keyof RunOptions, (typeof OPTIONS)[number]['key']>;
const everyKeyHasARow: [MissingRows] extends [never] ? true : { missingRow: MissingRows } = true;
void everyKeyHasARow;

/** The rows of a command. */
export function optionsOf(command: Command): readonly OptionDef[] {
  return (OPTIONS as readonly OptionDef[]).filter((o) => (o.commands ?? ['run']).includes(command));
}

/** The flag of a row on a command's command line, if it takes one there. */
export function flagOf(def: OptionDef, command: Command): string | undefined {
  return def.flag && (def.flagCommands ?? def.commands ?? ['run']).includes(command) ? def.flag : undefined;
}

/** Defaults of a command's rows as a partial options object. */
export function defaults(command: Command = 'run'): Partial<RunOptions> {
  const out: Record<string, unknown> = {};
  for (const o of optionsOf(command)) {
    const value = defaultOf(o, command);
    if (value !== undefined) out[o.key] = structuredClone(value);
  }
  return out as Partial<RunOptions>;
}

/** A row's default on a command: its `defaultByCommand` entry, else its `default`. */
export function defaultOf(def: OptionDef, command: Command): unknown {
  const own = def.defaultByCommand?.[command];
  return own !== undefined ? own : def.default;
}
