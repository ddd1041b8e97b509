/**
 * The kit as a user installs it (takes 40 s to 4 minutes on 2 cores, by load: `npm pack`, in a copy of the kit's
 * folder, compiles dist/ with tsc and builds the offline docs page in `prepack`, then `npm install` of the tarball from the local npm cache, two runs of
 * the suites, one type-check). In an empty temporary folder, as the README's install line says
 * (`npm install --save-dev pagi-conformance`, then `npx pagi-conform …`): `npx pagi-conform run` against the embedded
 * reference gateway, leaving no cache inside the installed package; `npx pagi-conform serve` and a run against it;
 * the API imported from plain ESM (`pagi-conformance`, `pagi-conformance/pact`, the JSON schemas), and a TypeScript
 * consumer type-checked under `strict` + `exactOptionalPropertyTypes` with `skipLibCheck` and no `@types` package of
 * its own.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { KIT_VERSION } from '../../core/version.js';

const exec = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const TSC = path.join(KIT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let dir: string;
let tarball: string;
let packed: string[];

async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof err.code === 'number' ? err.code : 1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? String(e),
    };
  }
}

/** Folders of vitest's and Vite's caches under `root` (relative), which a run must not write into the installed kit. */
function cachesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (['.vite', '.experimental-vitest-cache', '.cache'].includes(entry.name)) out.push(path.relative(root, full));
      else walk(full);
    }
  };
  walk(root);
  return out;
}

/** Top-level entries of the kit's folder the copy to pack leaves out: installed, built, or written by runs and tests. */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'reports', 'coverage', 'tmp', '.scratch']);

/**
 * A copy of the kit's folder to pack, its node_modules a link to the kit's. `npm pack` runs `prepack`, whose tsc and
 * build-js rewrite dist/ file by file: in the kit's own folder that happened under the CLI runs of the other test
 * worker, and a run that imported a half-written module of dist/ failed to link (CI of stop 41: "does not provide an
 * export named 'buildRunResult'").
 */
function kitCopy(into: string): string {
  const copy = path.join(into, 'kit');
  fs.cpSync(KIT_ROOT, copy, {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(KIT_ROOT, src);
      const top = rel.split(path.sep)[0] ?? '';
      return !NOT_COPIED.has(top) && !top.startsWith('.vitest-') && !rel.includes(`${path.sep}.run-ts-`);
    },
  });
  fs.symlinkSync(path.join(KIT_ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  return copy;
}

describe('the packed kit, installed into an empty folder (40 s to 4 minutes, by load)', { timeout: 600_000 }, () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-pack-'));
    const pack = await sh(NPM, ['pack', '--json', '--pack-destination', dir], kitCopy(dir));
    expect(pack.code, pack.stderr).toBe(0);
    const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = path.join(dir, info[0]!.filename);
    packed = info[0]!.files.map((f) => f.path);
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    // The README's install line, offline from the npm cache (npm ci filled it on CI).
    const install = await sh(
      NPM,
      ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
      app,
    );
    expect(install.code, install.stderr).toBe(0);
  }, 600_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ships dist/ with declarations, the sources a run needs, the LICENSE, the README with its docs/ pages, and no tests, benchmarks or CI files', () => {
    for (const f of [
      'dist/kit/index.js',
      'dist/kit/index.d.ts',
      'dist/pact/index.js',
      'dist/pact/index.d.ts',
      'LICENSE',
      'bin/pagi-conform.js',
      'cli/main.ts',
      'cli/proxy.ts',
      'proxy/server.ts',
      'suites/registry.ts',
      'spec/openapi.yaml',
      'schemas/results.schema.json',
      'schemas/profile.schema.json',
      'examples/pagi.yaml',
      'README.md',
      'docs/running-and-ci.md',
      'docs/index.html',
      'CHANGELOG.md',
    ]) {
      expect(packed, f).toContain(f);
    }
    expect(packed.filter((f) => /^(test|bench|\.ci|gateway\/test)\//.test(f))).toEqual([]);
  });

  it('npx pagi-conform run works against the embedded reference gateway', async () => {
    const app = path.join(dir, 'app');
    const run = await sh(
      'npx',
      ['--no-install', 'pagi-conform', 'run', '--reporter', 'console,json,junit', '--out', 'reports', '--seed', '11'],
      app,
    );
    // npx itself may warn about the machine's npm configuration; the kit prints nothing on stderr.
    expect(run.stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'))).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^verdict: CONFORMANT/m);
    const results = JSON.parse(fs.readFileSync(path.join(app, 'reports', 'results.json'), 'utf8'));
    expect(results).toMatchObject({ verdict: 'CONFORMANT', metadata: { seed: 11, target: { embedded: true } } });
    expect(fs.existsSync(path.join(app, 'reports', 'junit.xml'))).toBe(true);
    expect(results.metadata.kitVersion).toBe(KIT_VERSION);
    // The run's caches are the project's (node_modules/.cache/pagi-conformance), none inside the installed package.
    const kit = path.join(app, 'node_modules', 'pagi-conformance');
    expect(cachesUnder(kit)).toEqual([]);
    expect(fs.existsSync(path.join(app, 'node_modules', '.cache', 'pagi-conformance', 'vitest-modules'))).toBe(true);
    // The README's offline docs page of an installed kit.
    expect(fs.statSync(path.join(kit, 'docs', 'index.html')).size).toBeGreaterThan(100_000);
  });

  it('npx pagi-conform answers from the installed folder with its command line', async () => {
    const version = await sh('npx', ['--no-install', 'pagi-conform', '--version'], path.join(dir, 'app'));
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(`pagi-conform ${KIT_VERSION}`);
    const help = await sh('npx', ['--no-install', 'pagi-conform', 'run', '--help'], path.join(dir, 'app'));
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: pagi-conform run /);
    const installed = path.join(dir, 'app', 'node_modules', 'pagi-conformance', 'package.json');
    expect(JSON.parse(fs.readFileSync(installed, 'utf8')).version).toBe(KIT_VERSION);
  });

  it('npx pagi-conform serve from the installed folder, and a run against it', async () => {
    const app = path.join(dir, 'app');
    const server = spawn('npx', ['--no-install', 'pagi-conform', 'serve', '--port', '0'], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    server.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    server.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    try {
      for (const end = Date.now() + 60_000; !/listening on http:\/\/\S+/.test(log) && Date.now() < end; )
        await new Promise((r) => setTimeout(r, 100));
      const url = /listening on (http:\/\/\S+)/.exec(log)?.[1];
      expect(url, log).toBeDefined();
      // The sandbox's account (the banner names it; its secret is the one README and gateway/README.md give).
      fs.writeFileSync(
        path.join(app, 'pagi.yaml'),
        'merchantId: M10001\naccountId: A20001\ncards:\n  approve: "4111111111111111"\n  decline: "4000000000000002"\ncardSecurityCode: "123"\n',
      );
      const run = await sh(
        'npx',
        [
          ...['--no-install', 'pagi-conform', 'run', '--target', url!, '--config', 'pagi.yaml'],
          ...['--only', 'limits', '--reporter', 'json', '--out', 'served'],
        ],
        app,
        { PAGI_SECRET: 'reference-secret-0001' },
      );
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const results = JSON.parse(fs.readFileSync(path.join(app, 'served', 'results.json'), 'utf8'));
      expect(results).toMatchObject({ verdict: 'CONFORMANT', metadata: { target: { baseUrl: url, embedded: false } } });
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });

  it('imports the API, pagi-conformance/pact and the schemas from plain ESM', async () => {
    const app = path.join(dir, 'app');
    fs.writeFileSync(
      path.join(app, 'use.mjs'),
      [
        "import { run, OPTIONS, UsageError } from 'pagi-conformance';",
        "import * as pact from 'pagi-conformance/pact';",
        "import results from 'pagi-conformance/schemas/results.schema.json' with { type: 'json' };",
        "import profile from 'pagi-conformance/schemas/profile.schema.json' with { type: 'json' };",
        "let refused = '';",
        "try { await run({ reporters: ['json'] }); } catch (e) { refused = e instanceof UsageError ? e.message : String(e); }",
        "const r = await run({ only: ['limits'], reporter: ['json'], out: 'api-reports' });",
        'console.log(JSON.stringify({ run: typeof run, options: OPTIONS.length, pact: Object.keys(pact).length, results: results.$id, profile: profile.$id, refused, verdict: r.verdict }));',
      ].join('\n'),
    );
    const use = await sh(process.execPath, ['use.mjs'], app);
    expect(use.stderr).toBe('');
    const out = JSON.parse(use.stdout.trim().split('\n').at(-1)!);
    expect(out).toMatchObject({
      run: 'function',
      refused:
        "Unknown option 'reporters'; did you mean 'reporter'? The options are the keys of the OPTIONS table the package exports.",
      verdict: 'CONFORMANT',
    });
    expect(out.options).toBeGreaterThan(20);
    expect(out.pact).toBeGreaterThan(0);
    expect(out.results).toMatch(/results\.schema\.json$/);
    expect(out.profile).toMatch(/profile\.schema\.json$/);
  });

  it('type-checks a TypeScript consumer under strict + exactOptionalPropertyTypes with skipLibCheck and no @types', async () => {
    const app = path.join(dir, 'app');
    fs.writeFileSync(
      path.join(app, 'consumer.ts'),
      [
        "import { run, type RunOptions, type RunResult, type Finding } from 'pagi-conformance';",
        "import type { } from 'pagi-conformance/pact';",
        "const options: Partial<RunOptions> = { target: 'http://127.0.0.1:8080', reporter: ['json', 'junit'], failOn: 'expected', concurrency: 2 };",
        "// @ts-expect-error: the option is 'reporter'",
        "const wrong: Partial<RunOptions> = { reporters: ['json'] };",
        'export async function verdict(): Promise<string> {',
        '  const result: RunResult = await run(options);',
        '  const first: Finding | undefined = result.checks[0]?.findings[0];',
        "  return `${result.verdict} ${first?.code ?? ''} ${String(wrong)}`;",
        '}',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: true,
          noEmit: true,
          types: [],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = await sh(process.execPath, [TSC, '-p', 'tsconfig.json'], app);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  });
});
