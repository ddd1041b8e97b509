import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { generateTypes, TYPED_SCHEMAS, TYPES_FILE } from '../../scripts/gen-types.js';
import { syncedSpecText } from '../../scripts/sync-spec.js';
import { generateValidators } from '../../scripts/gen-validators.js';
import { generateProfileSchema, PROFILE_SCHEMA_FILE } from '../../scripts/gen-profile-schema.js';
import { kitSpec } from '../../core/spec/load.js';
import { operationSet } from '../../core/spec/operations.js';
import { GENERATED_VALIDATORS } from '../../core/spec/validators.js';
import { firstDifference } from '../support/text.js';

describe('derived artefacts and lint', () => {
  it('core/types/generated.ts is what json-schema-to-typescript makes of schemas/ (npm run gen:types)', async () => {
    expect(
      firstDifference(fs.readFileSync(TYPES_FILE, 'utf8'), await generateTypes()),
      'stale: run npm run gen:types',
    ).toBeUndefined();
  });

  it('core/types/generated.ts holds the types of the schemas the code imports, each of them imported', () => {
    const generated = fs.readFileSync(TYPES_FILE, 'utf8');
    const roots = [.../export interface PagiSchemas \{([^}]*)\}/.exec(generated)![1]!.matchAll(/: (\w+);/g)].map(
      (m) => m[1]!,
    );
    expect(roots).toHaveLength(TYPED_SCHEMAS.length);
    const imported = new Set<string>();
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
        );
    for (const file of ['core', 'engine', 'discover', 'pact', 'kit', 'cli', 'suites', 'reporters', 'gateway'].flatMap(
      (d) => walk(path.join(KIT_ROOT, d)),
    )) {
      for (const m of fs
        .readFileSync(file, 'utf8')
        .matchAll(/import type \{([^}]*)\} from '[./]*(?:src\/)?types\/generated\.js'/g)) {
        for (const name of m[1]!.split(',')) imported.add(name.trim());
      }
    }
    expect(roots.filter((r) => !imported.has(r))).toEqual([]);
  });

  it("the profile schema's per-operation parts are generated from the spec's operation sets (npm run gen:profile-schema)", () => {
    const current = fs.readFileSync(PROFILE_SCHEMA_FILE, 'utf8');
    expect(firstDifference(current, generateProfileSchema()), 'stale: run npm run gen:profile-schema').toBeUndefined();
    const schema = JSON.parse(current);
    const all = operationSet(kitSpec(), 'all');
    expect(Object.keys(schema.properties.requestMedia.properties.types.properties)).toEqual(all);
    expect(Object.keys(schema.properties.selection.properties)).toEqual(operationSet(kitSpec(), 'selecting'));
    expect(schema.$defs.operation.enum).toEqual(all);
  });

  it('core/spec/validators.generated.cjs is what Ajv standalone makes of schemas/ (npm run gen:validators)', () => {
    expect(
      firstDifference(fs.readFileSync(GENERATED_VALIDATORS, 'utf8'), generateValidators()),
      'stale: run npm run gen:validators',
    ).toBeUndefined();
  }, 60_000);

  it("the spec's per-operation requirement lists are derived from the catalogue (npm run spec:sync)", () => {
    const { current, synced } = syncedSpecText();
    expect(firstDifference(current, synced), 'stale: run npm run spec:sync').toBeUndefined();
  });

  it('redocly lint passes with no errors, and every rule turned off is justified in redocly.yaml', () => {
    const config = fs.readFileSync(path.join(KIT_ROOT, 'redocly.yaml'), 'utf8');
    const rules = parseYaml(config).rules ?? {};
    const lines = config.split('\n');
    for (const [rule, setting] of Object.entries(rules)) {
      if (setting !== 'off') continue;
      const at = lines.findIndex((l) => l.trim().startsWith(`${rule}:`));
      expect(lines[at - 1]?.trim(), `${rule} is off without a comment above it`).toMatch(/^#/);
    }
    const bin = path.join(KIT_ROOT, 'node_modules', '.bin', 'redocly');
    let out = '';
    try {
      out = execFileSync(bin, ['lint', 'spec/openapi.yaml', '--format', 'summary'], {
        cwd: KIT_ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      throw new Error(`redocly lint failed:\n${err.stdout}\n${err.stderr}`);
    }
    expect(out).not.toMatch(/error/i);
  }, 60_000);
});

describe('docs/spec-and-levels.md formats section', () => {
  it('its formats table is the one derived from the schemas (npm run readme:formats)', async () => {
    const { readmeIsCurrent } = await import('../../scripts/readme-formats.js');
    expect(readmeIsCurrent(), 'stale: run npm run readme:formats').toBe(true);
  });
});

describe('docs/reports.md checks section', () => {
  it('lists the check ids and finding codes of the registry (npm run readme:checks)', async () => {
    const { readmeChecksCurrent } = await import('../../scripts/readme-checks.js');
    expect(readmeChecksCurrent(), 'stale: run npm run readme:checks').toBe(true);
  });
});

describe('docs/running-and-ci.md options section', () => {
  it('documents every run() option and config-file key of the options table (npm run readme:options)', async () => {
    const { readmeOptionsCurrent } = await import('../../scripts/readme-options.js');
    expect(readmeOptionsCurrent(), 'stale: run npm run readme:options').toBe(true);
  });
});
