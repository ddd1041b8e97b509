/**
 * The draft profile discovery writes: every value decided with its evidence, and every point left open LEFT OUT
 * (profile format 6: not stated), each listed in the draft's head as a question with its evidence, grouped by what a
 * person decides. Assembled over the defaults (the reference profile: the values the format documents first), the
 * open points then taken out where the format can say "not stated", checked, and rendered as YAML where each value
 * carries its evidence as a comment. An open optional key, whose absence would say something, is left out and named
 * in `notStated`. An open point the format cannot leave out (the labels `name`, `version` and `description`, a key
 * inside a list item or one a `oneOf` variant requires) keeps a value, marked UNKNOWN on its line.
 */
import { Document, isMap, isPair, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml';
import { completed, profileProblems } from '../core/profile/load.js';
import { pointerOf } from '../core/profile/stated.js';

/** One point of the draft: a value at a dotted profile path, and why. */
export interface Point {
  path: string;
  value: unknown;
  /** The request and a masked excerpt of the answer that decided the value, or why no probe can tell. */
  evidence: string;
  /** Set when the value is the format's default, not something discovery saw: what to check by hand. */
  unknown?: string;
  /**
   * An open point's partial finding that is shown, never stated: the draft leaves the point out (where the format
   * can) and lists the value in its head as what the probes saw (a set seen in part, a measured time).
   */
  shownOnly?: boolean;
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
  // A top-level key's parent is the root itself (getAt of '' would look for a key named '').
  const parent = parts.length > 1 ? getAt(root, parts.slice(0, -1).join('.')) : root;
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

  /** Leave a point open (left out of the draft where the format allows), with what to check by hand. */
  unknown(path: string, check: string, value?: unknown, evidence = ''): void {
    if (path === 'format') return;
    this.removed.delete(path);
    this.points.set(path, { path, value, evidence: oneLine(evidence), unknown: oneLine(check) });
  }

  /**
   * Leave a point open with what the probes saw of it, which does not decide it (a part of a set, a measured time):
   * `value` is shown in the draft's head as the partial finding, never stated (left out where the format can).
   */
  partial(path: string, check: string, value: unknown, evidence = ''): void {
    this.unknown(path, check, value, evidence);
    this.points.get(path)!.shownOnly = true;
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

  /** Open points for every leaf of `profile` no point covers (the format number is none: a draft names its format). */
  markUncovered(profile: Record<string, unknown>, check: (path: string) => string): void {
    for (const leaf of leafPaths(profile))
      if (
        leaf !== 'format' &&
        !this.covers(leaf) &&
        ![...this.removed].some((r) => leaf === r || leaf.startsWith(`${r}.`))
      )
        this.unknown(leaf, check(leaf));
  }

  /**
   * An open point over a subtree some of whose points were decided all the same (by another row, or before the row
   * stopped) is split: it gives way to an open point at each part of the subtree no decided point reaches (the same
   * question and evidence), so those parts can be left out while the decided ones stay. Without it the open point
   * kept the whole subtree, and every default below it posed as a finding.
   */
  splitOpen(profile: Record<string, unknown>): void {
    const decidedBelow = (path: string) =>
      [...this.points.values()].some((q) => !q.unknown && (q.path === path || q.path.startsWith(`${path}.`)));
    const split = (p: Point, path: string) => {
      const node = getAt(profile, path);
      if (!node || typeof node !== 'object' || Array.isArray(node)) return;
      for (const key of Object.keys(node)) {
        const child = `${path}.${key}`;
        if (!decidedBelow(child)) {
          if (!this.points.has(child))
            this.points.set(child, { path: child, value: undefined, evidence: p.evidence, unknown: p.unknown! });
        } else if (!this.points.has(child)) split(p, child);
      }
    };
    for (const p of this.all())
      if (p.unknown && p.value === undefined && decidedBelow(p.path) && !this.removed.has(p.path)) {
        this.points.delete(p.path);
        split(p, p.path);
      }
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

/** What a person decides, by the profile's top-level key: the question heading the open points below it. */
const QUESTIONS: readonly [string, string][] = [
  [
    'fields',
    'Request fields: what does your gateway call the card number, expiry and security code, and how does it mask a card?',
  ],
  ['requestMedia', 'Request bodies: which media types does each operation take?'],
  ['requestHeaders', 'Request headers: which extra headers does your gateway require?'],
  ['signature', 'Signature: how are requests, answers and notifications signed?'],
  ['selection', 'Queries: how does a query or a refund search select transactions?'],
  ['addressRestriction', 'Registered addresses: which operations answer only the registered IP addresses?'],
  ['statusValues', 'Status values: which value of each status field means what?'],
  ['transitions', 'Transitions: which operation does each payment state allow, and what does a refusal say?'],
  ['payments', 'Payments: which test cards approve or decline, and what does a result say?'],
  ['review', 'Review: what holds a payment for review?'],
  ['batch', 'Batch operations: how does an item fail or succeed, and in which order are items checked?'],
  ['errors', 'Errors: which HTTP status, code and message does each kind of error get, and which is checked first?'],
  ['limits', 'Limits: how many items, how many transactions and how large a body does an operation take?'],
  ['refunds', 'Refunds: how are partial refunds and refund references made?'],
  ['payout', 'Payouts: how are fees, failures and repeated requests handled?'],
  ['checkout', 'Hosted checkout: which values does the page add and how are they formed?'],
  ['notifications', 'Notifications: which notifications are sent, when, in which form, how signed and how retried?'],
];

/** The question heading the open points of a top-level key. */
function questionOf(key: string): string {
  return QUESTIONS.find(([k]) => k === key)?.[1] ?? `${key}: what does your gateway do?`;
}

/** The deepest point at `leaf` or above it (the one whose value the leaf holds), if any. */
function pointAt(points: ReadonlyMap<string, Point>, leaf: string): Point | undefined {
  const parts = leaf.split('.');
  for (let n = parts.length; n > 0; n--) {
    const p = points.get(parts.slice(0, n).join('.'));
    if (p) return p;
  }
  return undefined;
}

/** An open point left out of the draft: its question, and the value it would have held. */
export interface LeftOut {
  point: Point;
  /** The value the assembled draft held there: the point's partial finding, or the format's default. */
  held: unknown;
}

/**
 * The profile with every open point left out where the format can say "not stated" (format 6): the point, or its
 * nearest ancestor every leaf of which is open, when the loader reads its absence as not stated (core/profile/stated.ts).
 * An open point the format cannot leave out keeps its value (marked UNKNOWN on its line), as does one holding a partial
 * finding with its evidence, and the labels (`name`, `version`, `description`). Returns the open points that are
 * absent from the profile, in order.
 */
export function leaveOutOpen(
  profile: Record<string, unknown>,
  points: readonly Point[],
): { profile: Record<string, unknown>; leftOut: LeftOut[] } {
  const out = structuredClone(profile);
  const byPath = new Map(points.map((p) => [p.path, p]));
  // An open point holding what its evidence showed (a partial finding) is stated, marked for review, unless the
  // finding is shown only (Draft.partial: it does not decide the point); one holding no evidence (the format's
  // default, or a value chosen only to be distinct) is left out.
  const open = (leaf: string) => {
    const p = pointAt(byPath, leaf);
    return Boolean(p?.unknown) && (Boolean(p!.shownOnly) || !(p!.value !== undefined && p!.evidence));
  };
  const held = new Map(points.filter((p) => p.unknown).map((p) => [p.path, getAt(profile, p.path)]));
  const refilled = (path: string) => {
    const trial = structuredClone(out);
    removeAt(trial, path);
    const pointer = pointerOf(path.split('.'));
    return completed(trial).unstated.some((u) => u === pointer || u.startsWith(`${pointer}/`));
  };
  const ordered = points
    .filter((p) => p.unknown && open(p.path))
    .sort((a, b) => a.path.split('.').length - b.path.split('.').length);
  for (const p of ordered) {
    if (['name', 'version', 'description'].includes(p.path) || getAt(out, p.path) === undefined) continue;
    for (let target = p.path; target; target = target.split('.').slice(0, -1).join('.')) {
      if (!leafPaths(getAt(out, target), target).every(open)) break;
      if (!target.includes('.') && ['name', 'version', 'description', 'format'].includes(target)) break;
      if (refilled(target)) {
        removeAt(out, target);
        // A map its open points all left goes too (rather than stay an empty map).
        for (let up = parentOf(target); up && isEmptyMap(getAt(out, up)) && refilled(up); up = parentOf(up))
          removeAt(out, up);
        break;
      }
    }
  }
  listNotStated(
    out,
    points.filter((p) => p.unknown && open(p.path)),
  );
  const leftOut = points
    .filter((p) => p.unknown && getAt(out, p.path) === undefined)
    .map((point) => ({ point, held: held.get(point.path) }));
  return { profile: out, leftOut };
}

/**
 * The open points still stated by what the profile holds or leaves out (an optional key, whose absence says
 * something) named in `notStated`: each left out where the profile stays valid without it, and listed.
 */
function listNotStated(out: Record<string, unknown>, open: readonly Point[]): void {
  const unstated = completed(out).unstated;
  const covered = (pointer: string) =>
    unstated.some((u) => u === pointer || pointer.startsWith(`${u}/`) || u.startsWith(`${pointer}/`));
  const listed: string[] = [];
  const problems = profileProblems(out).length;
  for (const p of open) {
    if (['name', 'version', 'description', 'format'].includes(p.path)) continue;
    const pointer = pointerOf(p.path.split('.'));
    if (covered(pointer) || listed.some((l) => pointer.startsWith(`${l}/`))) continue;
    if (getAt(out, p.path) !== undefined) {
      const trial = structuredClone(out);
      removeAt(trial, p.path);
      if (profileProblems(trial).length > problems) continue; // a key a variant needs: held, marked UNKNOWN
      removeAt(out, p.path);
    }
    listed.push(pointer);
  }
  if (listed.length) out.notStated = listed;
}

const parentOf = (path: string) => path.split('.').slice(0, -1).join('.');
const isEmptyMap = (v: unknown) =>
  Boolean(v) && typeof v === 'object' && !Array.isArray(v) && !Object.keys(v as object).length;

/** A value as one short line of JSON. */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * The lines listing the open points left out, grouped under the question a person decides, one line per point
 * marked UNKNOWN: its path, what to check, the evidence, and the value the draft would have held.
 */
export function leftOutLines(leftOut: readonly LeftOut[]): string[] {
  if (!leftOut.length) return [];
  const lines = [
    '',
    `Left out: ${leftOut.length} point${leftOut.length === 1 ? '' : 's'} no probe decided (profile format 6: a point left out is not stated, and a`,
    'run judges no check that needs one, naming it). State each one you know as a line of this profile; then',
    "'pagi-conform profile validate' counts the points still not stated.",
  ];
  const keys = [...new Set(leftOut.map((l) => l.point.path.split('.')[0]!))].sort(
    (a, b) => order(a) - order(b) || a.localeCompare(b),
  );
  for (const key of keys) {
    lines.push('', questionOf(key));
    for (const { point, held } of leftOut.filter((l) => l.point.path.split('.')[0] === key)) {
      const was = point.value !== undefined ? 'partial finding' : 'format default, not applied';
      const evidence = point.evidence ? ` Evidence: ${point.evidence}.` : '';
      const check = point.unknown!.replace(/\.$/, '');
      lines.push(
        `  ${UNKNOWN_MARK} what is ${point.path}? ${check[0]!.toUpperCase()}${check.slice(1)}.${evidence}${held !== undefined ? ` (${was}: ${shortJson(held)})` : ''}`,
      );
    }
  }
  return lines;
}

function order(key: string): number {
  const i = QUESTIONS.findIndex(([k]) => k === key);
  return i === -1 ? QUESTIONS.length : i;
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
