import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';

/**
 * bin/launch.js's choice between the compiled kit (dist/) and its sources, in a copy of the launcher inside a
 * temporary kit root: a built copy is used while no source of the compiled folders is newer than dist/BUILD.json.
 */
let root: string;

/** What compiledEntry(entry) answers in the temporary root (null for undefined). */
function compiledEntry(entry: string, env: NodeJS.ProcessEnv = {}): string | null {
  const code = `const { compiledEntry } = await import(${JSON.stringify(path.join(root, 'bin', 'launch.js'))}); console.log(JSON.stringify(compiledEntry(${JSON.stringify(entry)}) ?? null));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, PAGI_SOURCES: '', ...env },
  });
  return JSON.parse(out.trim());
}

/** Set a file's modification time `seconds` from now. */
function touch(file: string, seconds: number): void {
  const at = new Date(Date.now() + seconds * 1000);
  fs.utimesSync(file, at, at);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-launch-'));
  fs.mkdirSync(path.join(root, 'bin'));
  fs.copyFileSync(path.join(KIT_ROOT, 'bin', 'launch.js'), path.join(root, 'bin', 'launch.js'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.mkdirSync(path.join(root, 'cli'));
  fs.writeFileSync(path.join(root, 'cli', 'main.ts'), 'export {};\n');
  fs.mkdirSync(path.join(root, 'dist', 'cli'), { recursive: true });
  fs.writeFileSync(path.join(root, 'dist', 'cli', 'main.js'), 'export {};\n');
  fs.writeFileSync(path.join(root, 'dist', 'BUILD.json'), JSON.stringify({ folders: ['cli'] }));
  touch(path.join(root, 'cli', 'main.ts'), -60);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bin/launch.js: compiled or sources', () => {
  it('runs the compiled copy of an entry while the build is current', () => {
    expect(compiledEntry('cli/main.ts')).toBe(path.join(root, 'dist', 'cli', 'main.js'));
    expect(compiledEntry(path.join(root, 'cli', 'main.ts'))).toBe(path.join(root, 'dist', 'cli', 'main.js'));
  });

  it('runs the sources once a source of the compiled folders changed after the build, or a new one was added', () => {
    touch(path.join(root, 'cli', 'main.ts'), 60);
    expect(compiledEntry('cli/main.ts')).toBeNull();
    touch(path.join(root, 'cli', 'main.ts'), -60);
    fs.writeFileSync(path.join(root, 'cli', 'added.ts'), 'export {};\n');
    touch(path.join(root, 'cli', 'added.ts'), 60);
    expect(compiledEntry('cli/main.ts')).toBeNull();
  });

  it('runs the sources when nothing is built, for an entry outside the compiled folders, and with PAGI_SOURCES=1', () => {
    expect(compiledEntry('bench/run.ts')).toBeNull();
    expect(compiledEntry('cli/main.ts', { PAGI_SOURCES: '1' })).toBeNull();
    fs.rmSync(path.join(root, 'dist', 'BUILD.json'));
    expect(compiledEntry('cli/main.ts')).toBeNull();
  });
});
