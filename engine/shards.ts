/**
 * Sharded runs. `pagi-conform run --shard i/n` writes, besides its own reports, vitest's blob report of its suite
 * files and a manifest (the plan, the families that ran, metadata, warnings, the notifications received) under
 * `<out>/shard/`. `mergeShards` checks that the shards belong together, replays their blobs with vitest's
 * `mergeReports` through the same reporter adapter as a live run, and builds one RunResult from them: the same
 * verdict, totals and per-check results as one unsharded run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError, type FailOn, type RunOptions } from '../core/config/options.js';
import { maskOutgoing } from '../core/mask.js';
import type { ExchangeRecord, Family, RunResult, ShardRun } from '../core/model.js';
import { kitSpec, loadSpec, type SpecModel } from '../core/spec/load.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { viteOverrides } from '../core/cache.js';
import { VitestAdapter } from './adapter.js';
import type { EngineParts } from './parts.js';
import type { PlannedTest } from './plan.js';
import { buildRunResult, completeResults } from './results.js';

/** Format tag of a shard manifest. */
const SHARD_FORMAT = 'pagi-shard/1';

/** What a shard writes beside its blob report for the merge. */
export interface ShardManifest {
  format: typeof SHARD_FORMAT;
  /** `i/n`. */
  shard: string;
  plan: PlannedTest[];
  /** Families whose suite file ran in this shard. */
  families: Family[];
  metadata: RunResult['metadata'];
  /** The run's warnings (the shard's own note left out). */
  warnings: string[];
  /** Notifications the shard's receiver got, masked. */
  incoming: ExchangeRecord[];
  /** Requests this shard sent. */
  exchangesSent: number;
}

const shardDir = (out: string) => path.resolve(out, 'shard');
const suffix = (shard: string) => shard.replace('/', '-');

/** Where a shard's blob report goes. */
export function blobFile(out: string, shard: string): string {
  return path.join(shardDir(out), `blob-${suffix(shard)}.json`);
}

/** Write a shard's manifest under `<out>/shard/`. */
export function writeShardManifest(out: string, shard: string, parts: Omit<ShardManifest, 'format' | 'shard'>): string {
  const file = path.join(shardDir(out), `manifest-${suffix(shard)}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    maskOutgoing(JSON.stringify({ format: SHARD_FORMAT, shard, ...parts } satisfies ShardManifest)),
  );
  return file;
}

interface ShardFiles {
  manifest: ShardManifest;
  blob: string;
}

/** The shards in a folder given to merge: a shard run's `--out` folder or its `shard/` folder. */
function readShardFolder(dir: string): ShardFiles[] {
  const folder = fs.existsSync(path.join(dir, 'shard')) ? path.join(dir, 'shard') : dir;
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new UsageError(`${dir} is not a folder.`);
  const manifests = fs.readdirSync(folder).filter((f) => /^manifest-[0-9]+-[0-9]+\.json$/.test(f));
  if (!manifests.length)
    throw new UsageError(`${dir} holds no shard of a 'pagi-conform run --shard i/n' (no shard/manifest-i-n.json).`);
  return manifests.map((name) => {
    let manifest: ShardManifest;
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8'));
    } catch (e) {
      throw new UsageError(
        `The shard manifest ${path.join(folder, name)} cannot be read: ${(e as Error).message.split('\n')[0]}`,
      );
    }
    if (manifest.format !== SHARD_FORMAT)
      throw new UsageError(`${path.join(folder, name)} is not a ${SHARD_FORMAT} manifest.`);
    const blob = path.join(folder, `blob-${suffix(manifest.shard)}.json`);
    if (!fs.existsSync(blob))
      throw new UsageError(`Shard ${manifest.shard} in ${dir} has no blob report (${path.basename(blob)}).`);
    return { manifest, blob };
  });
}

/** The shards, in order, once they are shown to be the n parts of one run. */
function checkShards(shards: ShardFiles[]): ShardFiles[] {
  const [first] = shards;
  if (!first) throw new UsageError('Name the folders of the shard runs to merge.');
  const count = Number(first.manifest.shard.split('/')[1]);
  const same = (what: string, value: (m: ShardManifest) => unknown) => {
    const other = shards.find((s) => JSON.stringify(value(s.manifest)) !== JSON.stringify(value(first.manifest)));
    if (other)
      throw new UsageError(
        `Shards ${first.manifest.shard} and ${other.manifest.shard} do not belong to one run: their ${what} differ.`,
      );
  };
  same('shard counts', (m) => m.shard.split('/')[1]);
  same('kit versions', (m) => m.metadata.kitVersion);
  same('spec digests', (m) => m.metadata.spec.digest);
  same('profile digests', (m) => m.metadata.profile.digest);
  same('configurations (config digests)', (m) => m.metadata.configDigest);
  same('plans', (m) => m.plan.map((t) => `${t.key}:${t.selected}`));
  same('targets', (m) => (m.metadata.target.embedded ? 'embedded' : m.metadata.target.baseUrl));
  const byIndex = new Map(shards.map((s) => [Number(s.manifest.shard.split('/')[0]), s]));
  if (byIndex.size !== shards.length) throw new UsageError('A shard is given more than once.');
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length)
    throw new UsageError(
      `Shard(s) ${missing.map((i) => `${i}/${count}`).join(', ')} missing: merge needs all ${count}.`,
    );
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
}

function specFor(metadata: RunResult['metadata']): SpecModel {
  const own = kitSpec();
  if (own.digest === metadata.spec.digest) return own;
  try {
    const spec = loadSpec(metadata.spec.root);
    if (spec.digest === metadata.spec.digest) return spec;
  } catch {
    // fall through: the shards' spec is not here
  }
  throw new UsageError(
    `The shards ran with spec sha256:${metadata.spec.digest}, which is neither the kit's nor under ${metadata.spec.root}.`,
  );
}

/** Replay the shards' blob reports through `adapter` (vitest's mergeReports). */
async function replayBlobs(blobs: string[], adapter: VitestAdapter): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-merge-'));
  const exitCode = process.exitCode;
  try {
    for (const blob of blobs) fs.copyFileSync(blob, path.join(dir, path.basename(blob)));
    const { startVitest } = await import('vitest/node');
    const vitest = await startVitest(
      'test',
      [],
      { config: false, root: KIT_ROOT, watch: false, mergeReports: dir, reporters: [adapter] },
      viteOverrides(),
      { stdout: process.stdout, stderr: process.stderr },
    );
    await vitest.close();
  } finally {
    process.exitCode = exitCode; // the verdict decides the exit code, not vitest
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function mergedMetadata(shards: ShardManifest[], commandLine: string[]): RunResult['metadata'] {
  const base = shards[0]!.metadata;
  const startedAt = shards.map((s) => s.metadata.startedAt).sort()[0]!;
  const endedAt = shards
    .map((s) => s.metadata.endedAt)
    .sort()
    .at(-1)!;
  const runs: ShardRun[] = shards.map((s) => ({
    shard: s.shard,
    seed: s.metadata.seed,
    commandLine: s.metadata.commandLine,
    startedAt: s.metadata.startedAt,
    endedAt: s.metadata.endedAt,
    exchangesSent: s.exchangesSent,
  }));
  return {
    ...base,
    commandLine,
    selection: { only: base.selection.only, skip: base.selection.skip },
    startedAt,
    endedAt,
    durationMs: Date.parse(endedAt) - Date.parse(startedAt),
    shards: runs,
  };
}

/**
 * Merge the shard runs found in `dirs` into one RunResult, written by the reporters `options` select under
 * `options.out`. Usage errors (exit 2) when the shards are incomplete or do not belong to one run.
 */
export async function mergeShards(
  dirs: readonly string[],
  options: Pick<RunOptions, 'out' | 'reporter' | 'signKey'>,
  commandLine: string[],
  parts: Pick<EngineParts, 'createReporters'>,
): Promise<{ result: RunResult; files: string[] }> {
  const reporters = parts.createReporters(options);
  const shards = checkShards(dirs.flatMap(readShardFolder));
  const manifests = shards.map((s) => s.manifest);
  const first = manifests[0]!;
  const spec = specFor(first.metadata);
  const adapter = new VitestAdapter(reporters, {
    target: first.metadata.target.baseUrl,
    profile: first.metadata.profile.name,
    outDir: options.out,
  });
  await replayBlobs(
    shards.map((s) => s.blob),
    adapter,
  );
  const families = new Set(manifests.flatMap((m) => m.families));
  const results = completeResults(
    first.plan,
    adapter.results,
    (t) => families.has(t.family),
    `not run: ${adapter.errors[0] ?? 'no shard reported a result'}`,
  );
  const warnings = [
    ...new Set([...manifests.flatMap((m) => m.warnings), ...adapter.errors.map((e) => `kit error: ${e}`)]),
  ];
  const seeds = new Set(manifests.map((m) => m.metadata.seed));
  if (seeds.size > 1)
    warnings.push(
      `The shards ran with different seeds (${[...seeds].join(', ')}): give every shard the same --seed to repeat the run.`,
    );
  const result = buildRunResult(spec, first.plan, results, {
    metadata: mergedMetadata(manifests, commandLine),
    exchanges: adapter.exchanges,
    warnings,
    failOn: first.metadata.failOn as FailOn,
  });
  const files = await adapter.runEnd(
    result,
    manifests.flatMap((m) => m.incoming),
  );
  return { result, files };
}
