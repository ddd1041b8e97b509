/**
 * The install line works for a stranger: the package is `pagi-conformance` and its command `pagi-conform`, so a bare
 * `npx pagi-conform …` runs only where the package is installed. Every page a user reads that shows
 * `npx pagi-conform` installs the package first (`npm install --save-dev pagi-conformance`, or a CI recipe's pinned
 * `npm install … pagi-conformance@<version>`) or names the package to npx (`npx -p pagi-conformance`); the README's
 * user-facing commands are the installed package's (no `npm run` of the kit's own scripts outside a clone); the
 * recipes and pages that pin the kit's version pin package.json's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { KIT_VERSION } from '../../core/version.js';

const read = (file: string) => fs.readFileSync(path.join(KIT_ROOT, file), 'utf8');
/** Pages written for the kit's own developers, in a clone (where `npx pagi-conform` runs the clone's command). */
const CLONE_PAGES = new Set(['docs/development.md']);
/** Every page and CI recipe a user reads. */
const USER_PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(KIT_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
    .filter((f) => !CLONE_PAGES.has(f)),
  'spec/profiles/README.md',
  'gateway/README.md',
  'reporters/README.md',
  'examples/ci/README.md',
  'examples/ci/gitlab-ci.yml',
  'examples/ci/Jenkinsfile',
];
const INSTALLS = [
  /npm install --save-dev pagi-conformance\b/,
  /npm install [^\n]*\bpagi-conformance@\d+\.\d+\.\d+/,
  /npx -p pagi-conformance /,
];

/** The fenced code blocks of a Markdown page. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

describe('the install line', () => {
  it('every page showing `npx pagi-conform` installs the package before, or names it to npx', () => {
    const missing: string[] = [];
    for (const page of USER_PAGES) {
      const text = read(page);
      const first = text.indexOf('npx pagi-conform');
      if (first < 0) continue;
      const before = text.slice(0, first);
      if (!INSTALLS.some((re) => re.test(before))) missing.push(page);
    }
    expect(missing).toEqual([]);
  });

  it("the README's commands after its clone block are the installed package's: no `npm run` or `npm start` of the kit's scripts", () => {
    const [clone, ...rest] = codeBlocks(read('README.md'));
    expect(clone).toMatch(/^npm ci && npm start/);
    const lines = rest.flatMap((b) => b.split('\n')).filter((l) => /^\s*npm (run|start)\b/.test(l));
    expect(lines).toEqual([]);
    expect(read('README.md')).toContain('node_modules/pagi-conformance/docs/index.html');
  });

  it("the CI recipes and the install page pin package.json's version", () => {
    expect(KIT_VERSION).toBe(JSON.parse(read('package.json')).version);
    expect(read('examples/ci/action.yml')).toContain(`examples/ci@v${KIT_VERSION}`);
    for (const recipe of ['examples/ci/gitlab-ci.yml', 'examples/ci/Jenkinsfile'])
      expect(read(recipe), recipe).toContain(
        `npm install --no-save --no-audit --no-fund pagi-conformance@${KIT_VERSION}`,
      );
    expect(read('docs/running-and-ci.md')).toContain(`pagi-conformance-${KIT_VERSION}.tgz`);
    const pinned = USER_PAGES.flatMap((p) =>
      [...read(p).matchAll(/pagi-conformance(?:@v?|-)(\d+\.\d+\.\d+)/g)].map((m) => `${p}: ${m[0]}`),
    );
    expect(pinned.filter((p) => !p.endsWith(KIT_VERSION))).toEqual([]);
  });
});
