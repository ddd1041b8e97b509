/**
 * The README and the pages under docs/: every relative link resolves to a file of the repository, and a link's
 * `#anchor` to a heading (GitHub's anchor of it) or an `id` of the file it names; no link or text points outside the
 * repository. The README stays a five-minute read: at most 300 lines, opening with `npm ci && npm start` and
 * `npm test`, naming the interface document by its title.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';

const DOCS = path.join(KIT_ROOT, 'docs');
/** The pages checked: the README and every Markdown page under docs/. */
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** The other READMEs the pages link to: their links are checked too. */
const OTHER_PAGES = ['spec/profiles/README.md', 'gateway/README.md', 'reporters/README.md', 'examples/ci/README.md'];

/** Markdown without fenced code blocks and inline code spans, whose brackets are no links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every link target of a page: inline links `[text](target)` and reference definitions `[id]: target`. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const reference = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return [...inline, ...reference];
}

/** GitHub's anchor of a heading's text: lower case, punctuation dropped (not `-` or `_`), spaces made `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown file: its headings' (a repeated one numbered `-1`, `-2`, …) and its `id`/`name` attributes. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  const headings = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of headings.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of markdown.matchAll(/\s(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/** What is wrong with one link of `page`, or undefined when it resolves. */
function brokenLink(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: not a file of the repository
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = rawPath
    ? path.resolve(path.dirname(path.join(KIT_ROOT, page)), decodeURIComponent(rawPath))
    : path.join(KIT_ROOT, page);
  const relative = path.relative(KIT_ROOT, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return `${page}: ${target} points outside the repository`;
  if (!fs.existsSync(file)) return `${page}: ${target}: no file ${relative}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md')) return `${page}: ${target}: an anchor into a file that is not Markdown`;
  if (!anchors(fs.readFileSync(file, 'utf8')).has(decodeURIComponent(anchor)))
    return `${page}: ${target}: ${relative} has no heading or id "${anchor}"`;
  return undefined;
}

const read = (page: string) => fs.readFileSync(path.join(KIT_ROOT, page), 'utf8');

describe('links of the README and docs/', () => {
  it('finds the links and anchors it checks (the checker itself)', () => {
    expect(linkTargets('[a](b.md#c) `[x](y)` [r]: docs/x.md\n```\n[z](w)\n```')).toEqual(['b.md#c']);
    expect(linkTargets('[r]: docs/x.md')).toEqual(['docs/x.md']);
    expect(slug('Deep runs (`--depth N`)')).toBe('deep-runs---depth-n');
    expect(slug('Self-test: faults caught')).toBe('self-test-faults-caught');
    expect([...anchors('# A\n## A\n```\n# B\n```\n<a id="x"></a>')]).toEqual(['a', 'a-1', 'x']);
    expect(brokenLink('README.md', 'docs/nowhere.md')).toMatch(/no file/);
    expect(brokenLink('README.md', '#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('README.md', '../outside.md')).toMatch(/outside the repository/);
  });

  it('the README links every page under docs/', () => {
    const readme = read('README.md');
    expect(PAGES.length).toBeGreaterThan(8);
    for (const page of PAGES.filter((p) => p !== 'README.md')) expect(linkTargets(readme), page).toContain(page);
  });

  it.each([...PAGES, ...OTHER_PAGES])('%s: every relative link resolves to a file and anchor', (page) => {
    const targets = linkTargets(read(page));
    expect(targets.map((t) => brokenLink(page, t)).filter(Boolean)).toEqual([]);
  });

  it.each(PAGES)('%s: names no path outside the repository', (page) => {
    expect(read(page)).not.toMatch(/\.\.\/shared|shared\/seeds|\/work\//);
  });
});

describe('the README', () => {
  const readme = read('README.md');

  it('is a five-minute read: at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('opens with npm ci && npm start and npm test', () => {
    const commands = /```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.split('\n') ?? [];
    expect(commands[0]).toMatch(/^npm ci && npm start\b/);
    expect(commands[1]).toMatch(/^npm test\b/);
  });

  it('names the interface document by its title, as docs/spec-and-levels.md does', () => {
    expect(readme).toContain('*Payment Acquiring Gateway Interface*');
    expect(read('docs/spec-and-levels.md')).toContain('**Payment Acquiring Gateway Interface**');
  });
});
