/**
 * `pagi-conform profile discover --target URL --config FILE --out FILE`: draft a complete profile of a sandbox by
 * probing it (discover). Sends only to the target, at most a few hundred requests, at `--rate`; refused before
 * anything is sent by the live-target guard; everything it prints passes through the run's masking.
 */
import path from 'node:path';
import { optionLines, parseCommandLine, resolveOptions } from '../core/config/load.js';
import { UsageError, type RunOptions } from '../core/config/options.js';
import { discoverProfile, type DiscoveryResult } from '../discover/index.js';
import { contradictionLine, type FromProfile } from '../discover/from.js';
import { deprecationLine, loadProfile } from '../core/profile/load.js';
import {
  assertReachable,
  canBind,
  examplePaymentMethod,
  moneyGuard,
  UNKNOWN_PAYMENT_METHOD,
} from '../engine/runner.js';
import { guardStandardStreams, maskOutgoing, protectOutput } from '../core/mask.js';
import { kitSpec } from '../core/spec/load.js';
import { EXIT } from '../core/types/errors.js';
import { writeFile } from './profile-migrate.js';

/** Most requests one discovery may send (the discoverers stay well below it; past it the rest is UNKNOWN). */
export const DISCOVERY_BUDGET = 1000;

const HELP = [
  'usage: pagi-conform profile discover --target URL [--config FILE] [--from PARTIAL.yaml] [--out FILE]',
  '',
  'Drafts a profile of a sandbox by probing it the way an engineer would: signed and deliberately wrong',
  'requests find the signature scheme, card fields, request media, refusal forms and wording, status values,',
  'transitions, batch check order, selection, decline triggers, 3-D Secure and token answers, card masking,',
  'payouts, the checkout page and notifications. Each value of the draft carries the evidence that decided it as a',
  'comment; each point no probe could decide is left out (profile format 6: not stated) and listed in the head of',
  "the draft as a question marked 'UNKNOWN:', grouped by what a person decides (review them before a certification",
  'run). Prints the count of the lines marked UNKNOWN.',
  '',
  'With --from, discovery starts from what you know of your gateway: a profile stating any subset of the format',
  '(card fields, signature recipe, status values, error catalogue, ...). Its points seed the probes; each one is',
  'confirmed by them or, when a probe decides it otherwise, printed as a contradiction with its evidence (exit 1);',
  'the draft keeps your value with a comment saying whether it was confirmed, not contradicted, or CONTRADICTED.',
  '',
  'The credentials (merchantId, accountId, secret) come from the config file or PAGI_MERCHANT_ID, PAGI_ACCOUNT_ID',
  'and PAGI_SECRET. Discovery makes payments, captures, refunds and payouts: a target that is not loopback needs',
  'environment: sandbox (or --allow-live). It sends only to the target; a URL the target hands over is recorded,',
  'never requested. Notifications are observed on a loopback target, or with --notify-url on a remote one.',
  '',
  'options:',
  ...optionLines('profile discover'),
  '',
  'exit codes: 0 the draft is a valid profile (written), 1 the draft breaks the profile schema or its consistency',
  '            rules, or the gateway contradicts a point of --from (written all the same, each problem or',
  '            contradiction printed with its evidence), 2 usage error, no credentials, --from not a valid profile, the target',
  '            unreachable or refused by the live-target guard, no signature scheme of the catalogue or one choice',
  '            away from it accepted (nothing written), or the output cannot be written.',
].join('\n');

/** The one-line summary the command ends with. */
export function summaryLine(result: DiscoveryResult, where: string): string {
  const seconds = (result.durationMs / 1000).toFixed(1);
  return `${where}: ${result.leaves} values, ${result.unknowns} UNKNOWN (review them: grep -n 'UNKNOWN:' the draft), ${result.requests} requests in ${seconds} s`;
}

/**
 * The vendor's partial profile of `--from` (any format: an earlier one is migrated in memory, with the deprecation
 * line). A file that is not there or not a valid profile throws the loader's UsageError or ProfileError (exit 2).
 */
function readFrom(file: string): FromProfile {
  const loaded = loadProfile(file);
  const shown = path.relative(process.cwd(), loaded.file) || loaded.file;
  if (loaded.migration) console.error(deprecationLine(shown, loaded.migration));
  return { file: shown, loaded };
}

/** Print the contradictions of `--from` and the draft's problems; the exit code (1 when there is any). */
function verdict(result: DiscoveryResult, from: FromProfile | undefined): number {
  for (const c of result.contradictions) console.error(contradictionLine(c));
  if (result.contradictions.length) {
    const n = result.contradictions.length;
    console.error(
      `${n} point${n === 1 ? '' : 's'} of ${from?.file ?? '--from'} contradicted by the gateway: the draft keeps the stated value${n === 1 ? '' : 's'}, marked CONTRADICTED; correct the profile or the gateway.`,
    );
  }
  if (result.problems.length) {
    console.error(
      `the draft is NOT a valid profile (${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}); fix these lines by hand:`,
    );
    for (const p of result.problems) console.error(`  - ${p}`);
  }
  return result.contradictions.length || result.problems.length ? EXIT.failed : EXIT.ok;
}

/** Run the command with its arguments (after `profile discover`); returns the exit code. */
export async function profileDiscoverMain(argv: string[]): Promise<number> {
  let release = () => {};
  try {
    const { options: explicit } = parseCommandLine('profile discover', argv, false);
    if (explicit.help) {
      console.log(HELP);
      return EXIT.ok;
    }
    const options: RunOptions = resolveOptions(explicit, process.env, 'profile discover');
    // Whatever the command prints passes through maskOutgoing with the secret and the configured cards.
    const unguard = guardStandardStreams();
    const unprotect = protectOutput({
      secrets: options.secret ? [options.secret] : [],
      cards: Object.values(options.cards ?? {}),
    });
    release = () => {
      unprotect();
      unguard();
    };
    if (!options.target)
      throw new UsageError("Name the sandbox to discover with --target URL; 'pagi-conform profile discover --help'.");
    const { merchantId, accountId, secret } = options;
    if (!merchantId || !accountId || !secret)
      throw new UsageError(
        'No credentials for the target: set merchantId, accountId and secret in the config file, or PAGI_MERCHANT_ID, PAGI_ACCOUNT_ID and PAGI_SECRET.',
      );
    const from = options.discoverFrom ? readFrom(options.discoverFrom) : undefined;
    const guard = moneyGuard(options);
    const transport = {
      timeoutMs: options.timeout,
      maxResponseBytes: options.maxResponseBytes,
      concurrency: options.concurrency,
      rate: options.rate,
      allowedHosts: [],
      ...(options.caFile ? { caFile: options.caFile } : {}),
      ...(options.proxy ? { proxy: options.proxy } : {}),
    };
    await assertReachable(options.target, transport, undefined);
    const loopback = guard === 'loopback';
    const unregisteredAddress =
      options.unregisteredAddress ?? (loopback && (await canBind('127.0.0.2')) ? '127.0.0.2' : undefined);
    const notify = options.notifyUrl
      ? { listenOn: options.notifyListen, publicUrl: options.notifyUrl }
      : loopback
        ? { listenOn: '127.0.0.1:0' }
        : undefined;
    const out = options.profileOut;
    const say = out ? (line: string) => console.log(line) : (line: string) => console.error(line);
    const result = await discoverProfile({
      baseUrl: options.target,
      merchantId,
      accountId,
      secret,
      transport,
      cardSecurityCode: options.cardSecurityCode,
      orderPrefix: options.orderPrefix,
      paymentMethods: options.paymentMethods ?? {
        valid: examplePaymentMethod(kitSpec()),
        unknown: UNKNOWN_PAYMENT_METHOD,
      },
      ...(options.cards ? { cards: options.cards } : {}),
      ...(unregisteredAddress ? { unregisteredAddress } : {}),
      ...(notify ? { notify } : {}),
      budget: DISCOVERY_BUDGET,
      ...(from ? { from } : {}),
      commandLine: maskOutgoing(['pagi-conform', 'profile', 'discover', ...argv].join(' ')),
      log: (line) => console.error(`  ${line}`),
    });
    const signature = result.stopped.find((x) => x.id === 'signature');
    if (signature)
      throw new UsageError(
        `No signature scheme could be found, so nothing was drafted: ${signature.why}. Check --target and the credentials.`,
      );
    if (out) writeFile(out, result.yaml);
    else process.stdout.write(result.yaml);
    for (const s of result.stopped) say(`  stopped: ${s.id}: ${s.why}`);
    say(
      summaryLine(
        result,
        out ? `wrote ${path.relative(process.cwd(), out) || out}` : 'draft written to standard output',
      ),
    );
    return verdict(result, from);
  } catch (e) {
    // Left guarded: cli/main.ts prints the error through the same masking.
    release = () => {};
    throw e;
  } finally {
    release();
  }
}
