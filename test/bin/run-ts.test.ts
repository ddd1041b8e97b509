import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';

/** `node bin/run-ts.js FILE.ts`: the script runs as the process's main module, its arguments after it. */
function runTs(entry: string, ...args: string[]): string {
  return execFileSync(process.execPath, [path.join(KIT_ROOT, 'bin', 'run-ts.js'), entry, ...args], {
    cwd: KIT_ROOT,
    encoding: 'utf8',
  });
}

describe('bin/run-ts.js', () => {
  it('runs a TypeScript file of the kit given by an absolute path or relative to the kit root, with its arguments', () => {
    // Under the kit's root: its package.json makes the file an ES module, which tsx's loader transforms.
    const dir = fs.mkdtempSync(path.join(KIT_ROOT, 'test', 'bin', '.run-ts-'));
    const file = path.join(dir, 'script.ts');
    fs.writeFileSync(
      file,
      'const n: number = 2;\nconsole.log(JSON.stringify({ main: process.argv[1], args: process.argv.slice(2), n }));\n',
    );
    try {
      expect(JSON.parse(runTs(file, 'a', 'b'))).toEqual({ main: file, args: ['a', 'b'], n: 2 });
      expect(JSON.parse(runTs(path.relative(KIT_ROOT, file), 'c'))).toEqual({ main: file, args: ['c'], n: 2 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
