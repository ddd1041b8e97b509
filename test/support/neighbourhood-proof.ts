/**
 * The proof of one neighbour (test/support/neighbourhood.ts): the reference gateway serves it (in this process),
 * discovery drafts it (in this process), every value the draft states (a point not marked UNKNOWN) is compared with
 * the neighbour's truth leaf by leaf, `pagi-conform run --profile <draft>` runs against it (a child process) and its
 * failed checks are counted; a run that fails is repeated with the truth (the control: a neighbour the reference
 * gateway cannot serve conformantly is no neighbour). Optionally the same discovery again with `--from` holding only
 * the neighbour's card fields and signature recipe. Shared by test/discover/neighbourhood.test.ts (a sample) and
 * bench/neighbourhood.ts (the whole neighbourhood).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { leftOutPoints, profileLeafValues, statedAgreement } from '../../core/profile/agreement.js';
import { completed, loadProfile } from '../../core/profile/load.js';
import type { RunResult } from '../../core/model.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { type DiscoveryResult, discoverProfile } from '../../discover/index.js';
import type { FromProfile } from '../../discover/from.js';
import { canBind } from '../../engine/runner.js';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { servedDiscovery } from './discover-served.js';
import { mootRule } from './moot.js';
import type { Neighbour } from './neighbourhood.js';

type Json = Record<string, unknown>;

/** A stated value that is not the truth. */
export interface WrongValue {
  leaf: string;
  stated: unknown;
  truth: unknown;
}

/** How one draft fares against the truth. */
export interface DraftFigures {
  /** Leaves of the truth (labels and `format` left out). */
  leaves: number;
  /** Of those, the leaves the draft states (a point not marked UNKNOWN). */
  stated: number;
  /** The truth's leaves the draft leaves out. */
  unstated: string[];
  /** Leaves of the truth the gateway serving it never reads (test/support/moot.ts), and how many of them are stated. */
  moot: number;
  mootStated: number;
  wrong: WrongValue[];
  /** Stated leaves the truth does not have (an optional key the truth leaves out, such as a message pinned). */
  extra: { leaf: string; stated: unknown }[];
  problems: string[];
  contradictions: number;
  requests: number;
  seconds: number;
}

/** The proof of one neighbour. */
export interface NeighbourProof {
  id: string;
  personality: string;
  point: string;
  rule: string;
  change: string;
  discovery: DraftFigures;
  /** Failed checks of the run with the draft (`severity operation/check: message`). */
  failed: string[];
  /** Why the run with the draft left no results (it stopped: exit 2), if it did. */
  runError?: string;
  /** When the draft's run failed: the failed checks of a run with the truth (non-empty: not servable). */
  control?: string[];
  fromDiscovery?: DraftFigures;
  error?: string;
}

/** The figures of a draft that states nothing the proof can compare. */
function nothingStated(): Omit<DraftFigures, 'problems' | 'contradictions' | 'requests' | 'seconds'> {
  return { leaves: 0, stated: 0, unstated: [], moot: 0, mootStated: 0, wrong: [], extra: [] };
}

/**
 * The figures of a draft against the truth, by the proof's one rule (core/profile/agreement.ts `statedAgreement`, the
 * one test/discover/proof.test.ts holds the personalities to): stated leaves, wrong ones, added ones.
 */
export function draftFigures(found: DiscoveryResult, truth: Json): DraftFigures {
  const base = {
    problems: found.problems,
    contradictions: found.contradictions.length,
    requests: found.requests,
    seconds: Number((found.durationMs / 1000).toFixed(1)),
  };
  let unstated: string[];
  try {
    unstated = leftOutPoints(found.profile, completed(found.profile).unstated);
  } catch (e) {
    // A draft the format cannot complete states nothing the proof can compare: its problems say why.
    return { ...nothingStated(), ...base, problems: [...found.problems, (e as Error).message] };
  }
  const a = statedAgreement(truth, found.profile, unstated);
  const moot = [...profileLeafValues(truth).keys()].filter((leaf) => mootRule(truth, leaf));
  const mootLeft = a.notStated.filter((leaf) => mootRule(truth, leaf)).length;
  return {
    leaves: a.leaves,
    stated: a.stated,
    unstated: a.notStated,
    moot: moot.length,
    mootStated: moot.length - mootLeft,
    wrong: a.wrong.map((w) => ({ leaf: w.path, stated: w.received, truth: w.expected })),
    extra: a.added.map((leaf) => ({ leaf, stated: undefined })),
    ...base,
  };
}

async function discover(gw: RunningGateway, from: FromProfile | undefined, second: string | undefined) {
  return discoverProfile({
    ...servedDiscovery(gw, 'NBH'),
    notify: { listenOn: '127.0.0.1:0' },
    ...(second ? { unregisteredAddress: second } : {}),
    budget: 1000,
    ...(from ? { from } : {}),
    log: process.env.NBH_LOG ? (line) => console.error(`${from ? 'from ' : ''}${line}`) : () => {},
  });
}

/** `pagi-conform run` against the gateway with a profile: its failed checks, or why it left no results. */
function runKit(
  gw: RunningGateway,
  config: string,
  profile: string,
  out: string,
): Promise<{ failed: string[]; error?: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        path.join(KIT_ROOT, 'bin', 'pagi-conform.js'),
        'run',
        ...['--target', gw.baseUrl, '--config', config, '--profile', profile, '--reporter', 'json', '--out', out],
      ],
      { cwd: KIT_ROOT, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        const file = path.join(out, 'results.json');
        if (!fs.existsSync(file))
          return resolve({
            failed: [],
            error: `no results.json (exit ${(error as { code?: number } | null)?.code}): ${stderr.trim().slice(-600)}`,
          });
        const results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResult;
        fs.rmSync(out, { recursive: true, force: true });
        resolve({
          failed: results.checks
            .filter((c) => c.status === 'failed')
            .map((c) => `${c.severity} ${c.operation}/${c.checkId}: ${c.findings[0]?.message ?? ''}`.slice(0, 300)),
        });
      },
    );
  });
}

let second: Promise<string | undefined> | undefined;

/** The partial profile a vendor writes in a minute: the labels, the card fields and the signature recipe. */
export function cardAndSignature(truth: Json): Json {
  const { format, name, version, description } = truth;
  return {
    format,
    name,
    version,
    description,
    fields: { card: (truth.fields as Json).card },
    signature: truth.signature,
  };
}

/** Serve a neighbour, discover it, compare, run with the draft (and the control), and with `--from` if asked. */
export async function proveNeighbour(nb: Neighbour, dir: string, withFrom: boolean): Promise<NeighbourProof> {
  second ??= canBind('127.0.0.2').then((ok) => (ok ? '127.0.0.2' : undefined));
  const base = nb.id.replace(/[^A-Za-z0-9_-]+/g, '_');
  const truthFile = path.join(dir, `${base}.yaml`);
  fs.writeFileSync(truthFile, stringify(nb.profile));
  const gw = await startGateway({ port: 0, host: '127.0.0.1', profile: truthFile });
  const { id, personality, point, rule, change } = nb;
  try {
    const merchant = gw.config.merchants[0]!;
    const account = merchant.accounts[0]!;
    const config = path.join(dir, `${base}.config.yaml`);
    fs.writeFileSync(
      config,
      `merchantId: ${merchant.merchantId}\naccountId: ${account.accountId}\nsecret: ${account.secret}\n` +
        `paymentMethods:\n  valid: ${JSON.stringify(gw.config.apm.paymentMethods)}\n  unknown: PAGI_KIT_UNKNOWN\n`,
    );
    const found = await discover(gw, undefined, await second);
    const draftFile = path.join(dir, `${base}.discovered.yaml`);
    fs.writeFileSync(draftFile, found.yaml);
    const proof: NeighbourProof = {
      id,
      personality,
      point,
      rule,
      change,
      discovery: draftFigures(found, nb.profile),
      failed: [],
    };
    const run = await runKit(gw, config, draftFile, path.join(dir, `${base}.run`));
    proof.failed = run.failed;
    if (run.error) proof.runError = run.error;
    if (run.failed.length) {
      const control = await runKit(gw, config, truthFile, path.join(dir, `${base}.control`));
      proof.control = control.error ? [control.error] : control.failed;
    }
    if (withFrom) {
      const partial = path.join(dir, `${base}.from.yaml`);
      fs.writeFileSync(partial, stringify(cardAndSignature(nb.profile)));
      const from: FromProfile = { file: path.basename(partial), loaded: loadProfile(partial) };
      proof.fromDiscovery = draftFigures(await discover(gw, from, await second), nb.profile);
    }
    return proof;
  } catch (e) {
    const empty = { ...nothingStated(), problems: [], contradictions: 0, requests: 0, seconds: 0 };
    return {
      id,
      personality,
      point,
      rule,
      change,
      discovery: empty,
      failed: [],
      error: String((e as Error)?.stack ?? e),
    };
  } finally {
    await gw.close();
  }
}

/** Run `job` over `items`, `width` at a time, in order of start. */
export async function pool<T, R>(items: readonly T[], width: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await job(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return out;
}
