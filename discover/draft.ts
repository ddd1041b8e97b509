/**
 * The draft profile discovery writes: every value decided with its evidence, every point left open with the
 * format's default and what to check by hand. Assembled over the defaults (the reference profile: the values the
 * format documents first), checked, and rendered as YAML where each value carries its evidence as a comment.
 */
import { Document, isMap, isPair, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml';

/** One point of the draft: a value at a dotted profile path, and why. */
export interface Point {
  path: string;
  value: unknown;
  /** The request and a masked excerpt of the answer that decided the value, or why no probe can tell. */
  evidence: string;
  /** Set when the value is the format's default, not something discovery saw: what to check by hand. */
  unknown?: string;
}

/** The prefix marking a point discovery could not decide (the README's "review the UNKNOWN lines"). */
export const UNKNOWN_MARK = 'UNKNOWN:';

function getAt(root: unknown, path: string): unknown {
  let node = root;
  for (const part of path.split('.')) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function setAt(root: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = root;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!next || typeof next !== 'object' || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = structuredClone(value);
}

function removeAt(root: Record<string, unknown>, path: string): void {
  const parts = path.split('.');
  const parent = getAt(root, parts.slice(0, -1).join('.'));
  if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[parts.at(-1)!];
}

/** The dotted paths of an object's leaves: scalars, lists, empty objects (the leaves the agreement figures count). */
export function leafPaths(value: unknown, prefix = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (!keys.length) return prefix ? [prefix] : [];
    return keys.flatMap((k) => leafPaths((value as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k));
  }
  return prefix ? [prefix] : [];
}

/** The points decided so far, in the order they were set; a later point on the same path replaces an earlier one. */
export class Draft {
  private readonly points = new Map<string, Point>();
  /** Paths to leave out of the assembled profile (an optional key discovery found does not apply). */
  private readonly removed = new Set<string>();

  /** Decide a value. */
  set(path: string, value: unknown, evidence: string): void {
    this.removed.delete(path);
    this.points.set(path, { path, value, evidence: oneLine(evidence) });
  }

  /** Leave a point open: the format's default (or `value`), with what to check by hand. */
  unknown(path: string, check: string, value?: unknown, evidence = ''): void {
    this.removed.delete(path);
    this.points.set(path, { path, value, evidence: oneLine(evidence), unknown: oneLine(check) });
  }

  /** Leave an optional key out of the draft (with the reason, kept for the report). */
  remove(path: string, evidence: string): void {
    this.points.delete(path);
    this.removed.add(path);
    this.points.set(`${path}`, { path, value: undefined, evidence: oneLine(evidence) });
  }

  /** The value decided at `path` (not its default). */
  get<T = unknown>(path: string): T | undefined {
    const p = this.points.get(path);
    return p && !p.unknown ? (p.value as T) : undefined;
  }

  /** The value written at `path`, decided or left open with a value of its own (an open point's partial finding). */
  written<T = unknown>(path: string): T | undefined {
    return this.points.get(path)?.value as T | undefined;
  }

  has(path: string): boolean {
    const p = this.points.get(path);
    return p !== undefined && !p.unknown;
  }

  /** Whether a point (decided or open) was written at `path` or above it. */
  covers(path: string): boolean {
    for (const p of this.points.keys()) if (path === p || path.startsWith(`${p}.`)) return true;
    return false;
  }

  all(): Point[] {
    return [...this.points.values()];
  }

  /**
   * The profile: the defaults, each point's value put at its path (shallow paths first, so a point below a
   * subtree point refines it); an open point without a value keeps the default.
   */
  assemble(defaults: Record<string, unknown>): Record<string, unknown> {
    const out = structuredClone(defaults);
    const ordered = this.all().sort((a, b) => a.path.split('.').length - b.path.split('.').length);
    for (const p of ordered) {
      if (this.removed.has(p.path)) removeAt(out, p.path);
      else if (p.value !== undefined) setAt(out, p.path, p.value);
    }
    return out;
  }

  /** Open points for every leaf of `profile` no point covers (the default is kept, unchecked). */
  markUncovered(profile: Record<string, unknown>, check: (path: string) => string): void {
    for (const leaf of leafPaths(profile))
      if (!this.covers(leaf) && ![...this.removed].some((r) => leaf === r || leaf.startsWith(`${r}.`)))
        this.unknown(leaf, check(leaf));
  }

  /** Number of open points. */
  unknowns(): number {
    return this.all().filter((p) => p.unknown).length;
  }
}

/** A comment must stay on one line. */
function oneLine(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function commentOf(p: Point): string {
  const parts = [p.unknown ? `${UNKNOWN_MARK} ${p.unknown}` : '', p.evidence].filter(Boolean);
  return ` ${parts.join(' — ')}`;
}

/** The pair holding `key` in a map node. */
function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((i) => isPair(i) && isScalar(i.key) && i.key.value === key) as Pair | undefined;
}

/** Short lists and empty collections on one line, so their comment sits next to them. */
function flowSmall(node: Node | null | undefined): void {
  if (isSeq(node)) {
    if (node.items.every((i) => isScalar(i))) node.flow = true;
    else for (const i of node.items) flowSmall(i as Node);
  } else if (isMap(node)) {
    if (!node.items.length) node.flow = true;
    for (const i of node.items) if (isPair(i)) flowSmall(i.value as Node);
  }
}

/**
 * Paths whose values are the profile's own test card numbers: a profile must name them (they are test data the
 * sandbox documents, sent by every run), so they are the one thing of the draft left unmasked.
 */
export const UNMASKED_PATHS = ['payments.testCards'];

/** Every string of `value` passed through `mask`, except below UNMASKED_PATHS. */
function maskedValues<T>(value: T, mask: (text: string) => string, at = ''): T {
  if (UNMASKED_PATHS.some((p) => at === p || at.startsWith(`${p}.`))) return value;
  if (typeof value === 'string') return mask(value) as T;
  if (Array.isArray(value)) return value.map((v) => maskedValues(v, mask, at)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, maskedValues(v, mask, at ? `${at}.${k}` : k)]),
    ) as T;
  return value;
}

/**
 * The profile as YAML, `header` lines first, each point's evidence as a comment on its value (scalars and lists:
 * at the end of the line; mappings: on the line before the key). `mask` is applied to every comment, the header and
 * every value except the test cards (UNMASKED_PATHS).
 */
export function renderDraft(
  profile: Record<string, unknown>,
  points: readonly Point[],
  header: string[],
  mask: (text: string) => string = (text) => text,
): string {
  const doc = new Document(maskedValues(profile, mask));
  flowSmall(doc.contents as Node);
  for (const p of points) {
    if (p.value === undefined && !p.unknown && !getAt(profile, p.path)) continue;
    const parts = p.path.split('.');
    const parent = parts.length > 1 ? doc.getIn(parts.slice(0, -1), true) : doc.contents;
    if (!isMap(parent)) continue;
    const pair = pairOf(parent, parts.at(-1)!);
    if (!pair) continue;
    const value = pair.value as Node | null;
    const comment = mask(commentOf(p));
    if (isScalar(value) || (isSeq(value) && value.flow) || (isMap(value) && value.flow)) value.comment = comment;
    else if (isScalar(pair.key)) pair.key.commentBefore = comment;
  }
  doc.commentBefore = header.map((l) => ` ${mask(l)}`).join('\n');
  return doc.toString({ lineWidth: 0 });
}
