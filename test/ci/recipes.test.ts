/**
 * The CI recipes of examples/ci: the GitHub Action's YAML (inputs matched to the options table, its run script
 * executed with bash against the embedded gateway), the GitLab template, the Jenkinsfile and the Dockerfile (parsed:
 * docker cannot build here), and the README pointing at them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { optionsOf } from '../../core/config/options.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { tempDir } from '../support/temp.js';

const CI = path.join(KIT_ROOT, 'examples', 'ci');
const read = (name: string) => fs.readFileSync(path.join(CI, name), 'utf8');
const RUN_FLAGS = new Map(
  optionsOf('run')
    .filter((o) => o.flag)
    .map((o) => [o.flag!, o]),
);

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  if?: string;
}
interface Action {
  name: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(read('action.yml')) as Action;

describe('the GitHub Action (examples/ci/action.yml)', () => {
  it('is a composite action whose inputs are flags of the options table, with values the table accepts', () => {
    expect(action.runs.using).toBe('composite');
    const inputs = Object.keys(action.inputs);
    expect(inputs).toEqual(expect.arrayContaining(['target', 'profile', 'config', 'fail-on']));
    for (const name of inputs) {
      const def = RUN_FLAGS.get(name);
      expect(def, `input ${name} is no flag of pagi-conform run`).toBeDefined();
      expect(action.inputs[name]!.description.length).toBeGreaterThan(10);
      const fallback = action.inputs[name]!.default;
      if (fallback) expect(() => def!.type.parse(fallback, name)).not.toThrow();
    }
    expect(() => RUN_FLAGS.get('fail-on')!.type.parse(action.inputs['fail-on']!.default, 'fail-on')).not.toThrow();
  });

  it('passes every input to its flag, uploads the reports and writes the Markdown summary to the job summary', () => {
    const run = action.runs.steps.find((s) => s.id === 'run')!;
    for (const name of Object.keys(action.inputs)) {
      const variable = `INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
      expect(run.env?.[variable], name).toBe(`\${{ inputs.${name} }}`);
      expect(run.run, name).toContain(`--${name} "$${variable}"`);
    }
    expect(run.run).toContain('summary.md" >> "$GITHUB_STEP_SUMMARY"');
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload).toMatchObject({ if: 'always()', with: { path: '${{ inputs.out }}' } });
    expect(action.runs.steps.at(-1)!.run).toBe('exit ${{ steps.run.outputs.exit-code }}');
  });

  it('its run script, executed with bash as the runner would, runs the kit and fills the job summary and outputs', {
    timeout: 180_000,
  }, async () => {
    const run = action.runs.steps.find((s) => s.id === 'run')!;
    const dir = tempDir('pagi-action-');
    const values: Record<string, string> = {
      target: '',
      profile: 'reference',
      config: '',
      'fail-on': 'must',
      environment: '',
      only: 'limits',
      out: path.join(dir, 'reports'),
    };
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GITHUB_STEP_SUMMARY: path.join(dir, 'summary'),
      GITHUB_OUTPUT: path.join(dir, 'output'),
    };
    for (const [key, value] of Object.entries(run.env ?? {})) {
      env[key] = value
        .replace(/\$\{\{ inputs\.([a-z-]+) \}\}/, (_, name: string) => values[name] ?? '')
        .replace('${{ github.action_path }}/../..', KIT_ROOT);
    }
    const outcome = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        'bash',
        ['-e', '-c', run.run!],
        { cwd: dir, env, timeout: 170_000, maxBuffer: 32 * 1024 * 1024 },
        (error, stdout) => resolve({ code: error ? 1 : 0, stdout }),
      );
    });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^verdict: CONFORMANT/m);
    expect(fs.readFileSync(path.join(dir, 'output'), 'utf8')).toBe('exit-code=0\n');
    expect(fs.readFileSync(path.join(dir, 'summary'), 'utf8')).toMatch(/^## ✅ PAGI conformance: CONFORMANT/);
    for (const name of ['results.json', 'junit.xml', 'summary.md', 'report.html'])
      expect(fs.existsSync(path.join(values.out!, name)), name).toBe(true);
  });
});

describe('GitLab, Jenkins and the container image', () => {
  it('the GitLab template runs the kit and publishes junit.xml as a JUnit report', () => {
    const doc = parse(read('gitlab-ci.yml')) as Record<
      string,
      { script: string[]; artifacts: { when: string; reports: { junit: string }; paths: string[] } }
    >;
    const job = doc['.pagi-conformance']!;
    expect(job.script.join('\n')).toMatch(/npx pagi-conform run .*--reporter console,json,junit/);
    expect(job.artifacts).toMatchObject({ when: 'always', reports: { junit: 'pagi-reports/junit.xml' } });
    const flags = job.script
      .join(' ')
      .match(/--[a-z-]+/g)!
      .filter((f) => !['--no-save', '--no-audit', '--no-fund'].includes(f));
    expect(flags.filter((flag) => !RUN_FLAGS.has(flag.slice(2)))).toEqual([]);
  });

  it('the Jenkinsfile publishes junit.xml and archives the reports', () => {
    const text = read('Jenkinsfile');
    expect(text).toMatch(/sh 'npx pagi-conform run [^']*--reporter console,json,junit/);
    expect(text).toContain("junit testResults: 'pagi-reports/junit.xml'");
    expect(text).toContain("PAGI_SECRET = credentials('pagi-secret')");
    expect(text.split('{').length).toBe(text.split('}').length);
  });

  it('the Dockerfile parses: Node.js 20 base, the tarball npm pack writes, no browser, the CLI as entry point', () => {
    const file = DockerfileParser.parse(read('Dockerfile'));
    const instructions = file.getInstructions().map((i) => [i.getKeyword(), i.getArgumentsContent() ?? ''] as const);
    const known = new Set(['FROM', 'ENV', 'COPY', 'RUN', 'USER', 'WORKDIR', 'ENTRYPOINT', 'CMD']);
    expect(instructions.map(([k]) => k).filter((k) => !known.has(k))).toEqual([]);
    expect(instructions[0]).toEqual(['FROM', 'node:20-bookworm-slim']);
    const { name } = JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'package.json'), 'utf8')) as { name: string };
    expect(instructions.find(([k]) => k === 'COPY')![1]).toMatch(new RegExp(`^${name}-\\*\\.tgz `));
    expect(instructions.map(([, args]) => args).join('\n')).not.toMatch(/chromium|playwright/i);
    const entry = instructions.find(([k]) => k === 'ENTRYPOINT')![1];
    expect(JSON.parse(entry)).toEqual(['pagi-conform']);
    expect(JSON.parse(instructions.find(([k]) => k === 'CMD')![1])).toEqual(['run', '--help']);
  });

  it('the README points at examples/ci and each recipe is in examples/ci/README.md', () => {
    expect(fs.readFileSync(path.join(KIT_ROOT, 'README.md'), 'utf8')).toContain('examples/ci/README.md');
    const readme = read('README.md');
    for (const name of [
      'action.yml',
      'gitlab-ci.yml',
      'Jenkinsfile',
      'Dockerfile',
      '--notify-url',
      '--skip events',
      'docker build -f examples/ci/Dockerfile',
    ])
      expect(readme, name).toContain(name);
  });
});
