import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CODE_ROOT,
  COMPILED,
  familyOfSuiteFile,
  KIT_REGISTRY,
  KIT_ROOT,
  suiteFile,
  suiteTree,
} from '../../core/spec/paths.js';

describe('core/spec/paths.ts: the suite files of the sources and of the compiled kit', () => {
  it('runs from the sources under vitest: the kit root, its TypeScript registry', () => {
    expect(COMPILED).toBe(false);
    expect(CODE_ROOT).toBe(KIT_ROOT);
    expect(KIT_REGISTRY).toBe(path.join(KIT_ROOT, 'suites', 'registry.ts'));
  });

  it('names each family its suite file in either tree, and reads the family back from either', () => {
    const sources = suiteTree(false);
    const compiled = suiteTree(true);
    expect(sources).toEqual({ dir: path.join(KIT_ROOT, 'suites'), glob: 'suites/*.suite.ts', compiled: false });
    expect(compiled).toEqual({
      dir: path.join(KIT_ROOT, 'dist', 'suites'),
      glob: 'dist/suites/*.suite.js',
      compiled: true,
    });
    const ts = suiteFile('events', sources.dir, false);
    const js = suiteFile('events', compiled.dir, true);
    expect(ts).toBe(path.join(KIT_ROOT, 'suites', 'events.suite.ts'));
    expect(js).toBe(path.join(KIT_ROOT, 'dist', 'suites', 'events.suite.js'));
    expect([familyOfSuiteFile(ts), familyOfSuiteFile(js)]).toEqual(['events', 'events']);
  });
});
