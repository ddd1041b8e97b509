import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { LAYERS } from '../../scripts/layers.js';

/**
 * scripts/build-js.mjs compiles the kit's layers to dist/: every layer of scripts/layers.ts and nothing else, so a new
 * layer cannot be left out of the compiled kit (a command importing it would then fail only when run from dist/).
 */
describe('the compiled folders', () => {
  it('are the layers of scripts/layers.ts', async () => {
    const { COMPILED_FOLDERS } = (await import(
      pathToFileURL(path.join(KIT_ROOT, 'scripts', 'compiled-folders.mjs')).href
    )) as {
      COMPILED_FOLDERS: string[];
    };
    expect([...COMPILED_FOLDERS].sort()).toEqual(LAYERS.map((l) => l.folder).sort());
  });

  it('are shipped by the package', () => {
    const files: string[] = JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'package.json'), 'utf8')).files;
    for (const l of LAYERS) expect(files, l.folder).toContain(`${l.folder}/`);
  });
});
