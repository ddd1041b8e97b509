/**
 * Errors are thrown as what they are, where they arise: a condition a user can cause (a flag, a config or profile
 * file, a spec copy, a registry, a pact file, an option of the API) is thrown as its KitError class
 * (core/types/errors.ts), which cli/main.ts maps to its exit code. This test reads the source of every layer and lists
 * each remaining `throw new Error(`: each must be an internal invariant of this allow-list, with the reason it is one.
 * A new one fails the test; so does an entry that no longer matches a throw (remove it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../core/spec/paths.js';
import { LAYERS } from '../scripts/layers.js';

/** Files another change replaces as a whole: any throw of theirs is left to it. */
const REPLACED: Record<string, string> = {
  'gateway/journal.ts': 'replaced by the store work',
  'gateway/persist.ts': 'replaced by the store work',
};

/** `file` and the start of the thrown message (as written in the source), with why no user can cause it. */
const INTERNAL: { file: string; message: string; reason: string }[] = [
  {
    file: 'core/check-context.ts',
    message: '`requirement ${id} is not in the catalogue`',
    reason:
      "checks name requirements of the kit's own catalogue (registryProblems checks the registry's before a run, the pact and proxy tables theirs when they load); an id missing there is a defect of the kit",
  },
  {
    file: 'proxy/answer-checks.ts',
    message: '`proxy: no check ${id} in the table`',
    reason:
      "the proxy's lists of answer checks name checks of the kit's own table; a name missing there is a defect of the kit (test/proxy covers the lists)",
  },
  {
    file: 'core/spec/operations.ts',
    message: '`spec: no operation set ${String(name)}`',
    reason: 'the set names are a type of the kit (OperationSet); a caller naming another is a defect of the kit',
  },
  {
    file: 'core/profile/formats.ts',
    message: "'schemas/profile.schema.json has no format const'",
    reason: "the kit's own published schema, read from the package",
  },
  {
    file: 'core/profile/leaves.ts',
    message: '`profile schema: cannot resolve ${node.$ref}`',
    reason: "a $ref of the kit's own profile schema",
  },
  {
    file: 'core/profile/migrate.ts',
    message: "'profile migrate: the rewritten YAML does not hold the migrated profile'",
    reason: "the kit's own self-check of its YAML edit, after the profile was validated",
  },
  {
    file: 'engine/suite.ts',
    message: "'the run cannot be planned; the runner reports why'",
    reason: "the worker's signal to the runner, which throws the user's error (RegistryError, UsageError) itself",
  },
  {
    file: 'engine/suite.ts',
    message: 'failureMessage(env, result)',
    reason: 'how a failed check fails its vitest test; the verdict is the run result, not this error',
  },
  {
    file: 'engine/client.ts',
    message: '`no operation ${operation} in the spec`',
    reason: "probes send operations of the spec their checks were planned on (registryProblems checks the registry's)",
  },
  {
    file: 'engine/runner.ts',
    message: "`the suites did not run: ${adapter.errors[0] ?? 'no plan was written'}`",
    reason: 'the vitest worker crashed before planning; the registry and spec were loaded and checked before it',
  },
  {
    file: 'suites/checks/deep.ts',
    message: '`no deep property ${checkId}`',
    reason: "the deep family's checks and properties are one table of the kit",
  },
  {
    file: 'suites/registry.ts',
    message: '`suites registry is not valid:',
    reason: "the kit's own registry, checked when its module loads",
  },
  {
    file: 'suites/registry.ts',
    message: '`no check ${id}`',
    reason: "lookup of the kit's own check ids (tests and the self-test plan)",
  },
  {
    file: 'reporters/seal.ts',
    message: "'the page has no embedded results or no seal element'",
    reason: 'the html reporter seals the page it rendered itself',
  },
  {
    file: 'gateway/faults-deep.ts',
    message: '`no challenge window layout ${b.challenge_window_size}`',
    reason: 'a fault variant of the reference gateway meeting a request of the kit it was not written for',
  },
  {
    file: 'discover/index.ts',
    message: '`discoverer table: a cycle among',
    reason: "the kit's own table of discoverers",
  },
  {
    file: 'discover/session.ts',
    message: "'discovery session not started'",
    reason: 'a discoverer called before the session opened: the order is the kit',
  },
  {
    file: 'pact/observation.ts',
    message: '`a pact check read observation ${observation.probeId}, which holds no pact interaction`',
    reason: 'pact checks run on the observations pact check builds',
  },
  {
    file: 'pact/checks.ts',
    message: "'the pact checks read a merchant pact (pagi-conform pact check): they have no probe to run'",
    reason: 'the pact checks are never planned in a run',
  },
  {
    file: 'pact/checks.ts',
    message: '`pact check table is not valid:',
    reason: "the kit's own table, checked when its module loads",
  },
  {
    file: 'selftest/plan.ts',
    message: '`the fault registry does not fit the checks:',
    reason: "the kit's own fault table against its own checks",
  },
];

/** Every `.ts` file of a layer folder, tests left out. */
function layerFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(KIT_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'test' && entry.name !== 'node_modules') walk(rel);
      } else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) out.push(rel);
    }
  };
  for (const layer of LAYERS) walk(layer.folder);
  return out.sort();
}

/** Each `throw new Error(…)` (or `throw Error(…)`) of the layers: file, line and the start of its message. */
function genericThrows(): { file: string; line: number; message: string }[] {
  const found: { file: string; line: number; message: string }[] = [];
  for (const file of layerFiles()) {
    if (REPLACED[file]) continue;
    const text = fs.readFileSync(path.join(KIT_ROOT, file), 'utf8');
    for (const m of text.matchAll(/throw\s+(?:new\s+)?Error\(\s*/g)) {
      const line = text.slice(0, m.index).split('\n').length;
      found.push({ file, line, message: text.slice(m.index + m[0].length, m.index + m[0].length + 200) });
    }
  }
  return found;
}

describe('errors thrown where they arise', () => {
  it('reads the source of every layer', () => {
    const files = layerFiles();
    for (const layer of [
      'core',
      'engine',
      'suites',
      'reporters',
      'gateway',
      'discover',
      'pact',
      'kit',
      'selftest',
      'cli',
    ])
      expect(
        files.some((f) => f.startsWith(`${layer}/`)),
        layer,
      ).toBe(true);
  });

  it('throws no generic Error for a condition a user can cause: each one left is an internal invariant', () => {
    const unexplained = genericThrows()
      .filter((t) => !INTERNAL.some((a) => a.file === t.file && t.message.startsWith(a.message)))
      .map((t) => `${t.file}:${t.line}: throw new Error(${t.message.split('\n')[0]}`);
    expect(unexplained).toEqual([]);
  });

  it('has no stale entry, and a reason for each', () => {
    const throws = genericThrows();
    const stale = INTERNAL.filter((a) => !throws.some((t) => t.file === a.file && t.message.startsWith(a.message)));
    expect(stale).toEqual([]);
    for (const a of INTERNAL) expect(a.reason.length, a.file).toBeGreaterThan(20);
  });
});
