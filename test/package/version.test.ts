/**
 * The kit's version comes from package.json, read in one place (core/version.ts): results.json, the reports and
 * the pact check's results take it from there; no other source file of the kit's layers reads package.json's version.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS } from '../../scripts/layers.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { KIT_VERSION } from '../../core/version.js';

/** Every TypeScript file of a folder, recursively (relative to the kit's root). */
function sources(folder: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(KIT_ROOT, folder), { withFileTypes: true })) {
    const rel = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'test') out.push(...sources(rel));
    } else if (entry.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

describe("the kit's version", () => {
  it("is package.json's, read in core/version.ts only", () => {
    expect(KIT_VERSION).toBe(JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'package.json'), 'utf8')).version);
    const readers = LAYERS.flatMap((l) => sources(l.folder)).filter((file) =>
      /package\.json'\)[^\n]*\)\.version|\.version\b[^\n]*package\.json/.test(
        fs.readFileSync(path.join(KIT_ROOT, file), 'utf8'),
      ),
    );
    expect(readers).toEqual(['core/version.ts']);
  });
});
