import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseYamlText, readYamlFile } from '../core/yaml.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { tempDir } from './support/temp.js';

describe('YAML reading through the parse cache (core/yaml.ts)', () => {
  it('gives what yaml gives, for the spec, the catalogue and the profiles, on a miss and on a hit', () => {
    for (const file of [
      'spec/openapi.yaml',
      'spec/requirements.yaml',
      'spec/profiles/reference.yaml',
      'spec/profiles/sample-hmac-sorted.yaml',
    ]) {
      const direct = parseYaml(fs.readFileSync(path.join(KIT_ROOT, file), 'utf8'));
      expect(readYamlFile(path.join(KIT_ROOT, file))).toEqual(direct);
      expect(readYamlFile(path.join(KIT_ROOT, file))).toEqual(direct);
    }
  });

  it('hands out a fresh copy each time: a caller changing its value changes nobody else', () => {
    const text = `a:\n  b: [1, 2]\n# ${Math.random()}\n`;
    const first = parseYamlText(text);
    first.a.b.push(3);
    expect(parseYamlText(text)).toEqual({ a: { b: [1, 2] } });
  });

  it('an edited file is parsed again (the key is the text), and errors come from yaml and are never cached', () => {
    const file = path.join(tempDir('pagi-yaml-'), 'x.yaml');
    fs.writeFileSync(file, 'a: 1\n');
    expect(readYamlFile(file)).toEqual({ a: 1 });
    fs.writeFileSync(file, 'a: 2\n');
    expect(readYamlFile(file)).toEqual({ a: 2 });
    const duplicate = `a: 1\na: 2\n# ${Math.random()}\n`;
    expect(() => parseYamlText(duplicate)).toThrow(/unique/);
    expect(() => parseYamlText(duplicate)).toThrow(/unique/);
  });

  it('values JSON cannot carry (.inf, .nan) are returned as yaml reads them', () => {
    const text = `x: .inf\ny: .nan\n# ${Math.random()}\n`;
    const value = parseYamlText(text);
    expect(value.x).toBe(Infinity);
    expect(Number.isNaN(value.y)).toBe(true);
    expect(parseYamlText(text).x).toBe(Infinity);
  });
});
