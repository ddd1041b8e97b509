/**
 * Migration of a profile of an earlier format to the current one: the steps of core/profile/migrations.ts applied in
 * order to the parsed profile (what `run` and `serve` do in memory), and the same result written back into the YAML
 * text (what `pagi-conform profile migrate` does). The rewrite edits only the lines of the keys that change, so the
 * rest of the file, comments and layout included, stays as written; where a change falls inside a flow collection
 * (`{ a: 1 }`) the yaml library writes the whole document again instead (comments kept, alignment not).
 */
import { isCollection, isMap, isScalar, parseDocument, stringify, visit, type Document, type YAMLMap } from 'yaml';
import { CURRENT_PROFILE_FORMAT } from './formats.js';
import { MIGRATION_STEPS, valueAt, type Json, type MigrationStep, type ProfileChange } from './migrations.js';

export type { ProfileChange } from './migrations.js';

/** A profile taken from an earlier format to the current one. */
export interface Migration {
  /** The format the profile was in. */
  from: number;
  /** The format it is in now (the current one). */
  to: number;
  /** The changes of each step taken, in order. */
  steps: { step: MigrationStep; changes: ProfileChange[] }[];
  /** The migrated profile. */
  value: Json;
}

/** Every change of a migration, in order. */
export function allChanges(migration: Migration): ProfileChange[] {
  return migration.steps.flatMap((s) => s.changes);
}

function setAt(target: Json, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== 'object') node[key] = {};
    node = node[key] as Json;
  }
  node[keys.at(-1)!] = structuredClone(value);
}

function deleteAt(target: Json, dotted: string): void {
  const keys = dotted.split('.');
  const parent = valueAt(target, keys.slice(0, -1).join('.')) ?? (keys.length === 1 ? target : undefined);
  if (parent && typeof parent === 'object') delete (parent as Json)[keys.at(-1)!];
}

/**
 * Take a profile of format `from` to the current format. Each step sees the profile as the steps before it left it,
 * without `format`; the last one ends by writing the current number.
 */
export function migrateValue(profile: Json, from: number): Migration {
  const value = structuredClone(profile);
  delete value.format;
  const steps: Migration['steps'] = [];
  for (const step of MIGRATION_STEPS) {
    if (step.from < from) continue;
    const changes = step.changes(value);
    if (step === MIGRATION_STEPS.at(-1))
      changes.push({
        kind: 'added',
        path: 'format',
        value: CURRENT_PROFILE_FORMAT,
        reason: 'a profile names the format it is written in',
      });
    for (const c of changes) {
      if (c.kind === 'added') setAt(value, c.path, c.value);
      else deleteAt(value, c.path);
    }
    steps.push({ step, changes });
  }
  return { from, to: CURRENT_PROFILE_FORMAT, steps, value };
}

/** JSON text with object keys sorted: equal for equal data whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** One edit of the text: the characters from `start` to `end` become `text`. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/** What changed between the original and the migrated profile at the paths the steps touched (net of all steps). */
function netEdits(original: Json, migrated: Json, changes: readonly ProfileChange[]) {
  const removed = new Set<string>();
  const added = new Set<string>();
  const replaced = new Set<string>();
  for (const { path } of changes) {
    const keys = path.split('.');
    // An added key whose parent is new too is written as part of its nearest new ancestor.
    let at = path;
    for (let i = 1; i < keys.length; i++) {
      const prefix = keys.slice(0, i).join('.');
      if (valueAt(original, prefix) === undefined) {
        at = prefix;
        break;
      }
    }
    const before = valueAt(original, at);
    const after = valueAt(migrated, at);
    if (before !== undefined && after === undefined) removed.add(at);
    else if (before === undefined && after !== undefined) added.add(at);
    else if (before !== undefined && canonical(before) !== canonical(after)) replaced.add(at);
  }
  return { removed: [...removed], added: [...added], replaced: [...replaced] };
}

/** The block map at a dotted path (the root for ''), or undefined when it is no block map. */
function blockMap(doc: Document, dotted: string): YAMLMap | undefined {
  const node = dotted === '' ? doc.contents : doc.getIn(dotted.split('.'), true);
  return isMap(node) && !node.flow && node.items.length > 0 ? node : undefined;
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number) => {
  if (at > 0 && text[at - 1] === '\n') return at;
  const nl = text.indexOf('\n', at);
  return nl === -1 ? text.length : nl + 1;
};

/** `key: value` as block YAML at `indent`, sequences of scalars in flow style, a comment on the first line. */
function renderPair(key: string, value: unknown, indent: number, comment: string): string {
  const doc = parseDocument(stringify({ [key]: value }));
  flowScalarLists(doc);
  const lines = doc.toString({ lineWidth: 0, flowCollectionPadding: false }).trimEnd().split('\n');
  lines[0] = `${lines[0]}  # ${comment}`;
  return lines.map((l) => `${' '.repeat(indent)}${l}\n`).join('');
}

/** The edits that remove, add and replace keys in the original text; undefined when one falls outside a block map. */
function surgicalEdits(
  text: string,
  doc: Document,
  net: ReturnType<typeof netEdits>,
  migrated: Json,
  from: number,
): Edit[] | undefined {
  const edits: Edit[] = [];
  const pairOf = (dotted: string) => {
    const keys = dotted.split('.');
    const map = blockMap(doc, keys.slice(0, -1).join('.'));
    const pair = map?.items.find((p) => isScalar(p.key) && p.key.value === keys.at(-1));
    const keyRange = pair && isScalar(pair.key) ? pair.key.range : undefined;
    if (!map || !pair || !keyRange || text.slice(lineStart(text, keyRange[0]), keyRange[0]).trim() !== '')
      return undefined;
    return { map, pair, keyRange };
  };
  for (const dotted of net.removed) {
    const found = pairOf(dotted);
    if (!found) return undefined;
    const valueRange = (found.pair.value as { range?: [number, number, number] } | null)?.range;
    edits.push({
      start: lineStart(text, found.keyRange[0]),
      end: lineEnd(text, valueRange ? valueRange[1] : found.keyRange[1]),
      text: '',
    });
  }
  for (const dotted of net.replaced) {
    const found = pairOf(dotted);
    const range = found && isScalar(found.pair.value) ? found.pair.value.range : undefined;
    if (!range) return undefined;
    edits.push({ start: range[0], end: range[1], text: stringify(valueAt(migrated, dotted)).trimEnd() });
  }
  for (const dotted of net.added) {
    const keys = dotted.split('.');
    const parent = keys.slice(0, -1).join('.');
    const map = blockMap(doc, parent);
    const first = map?.items[0]?.key;
    const last = map?.items.at(-1);
    if (!map || !isScalar(first) || !first.range || !last || !isScalar(last.key) || !last.key.range) return undefined;
    const indent = first.range[0] - lineStart(text, first.range[0]);
    const value = valueAt(migrated, dotted);
    // The format goes first, as `openapi:` heads an OpenAPI document; any other key after its last sibling.
    const at =
      dotted === 'format'
        ? lineStart(text, first.range[0])
        : lineEnd(text, (last.value as { range?: [number, number, number] } | null)?.range?.[1] ?? last.key.range[1]);
    const comment =
      dotted === 'format'
        ? `migrated from format ${from} by pagi-conform profile migrate`
        : `added by pagi-conform profile migrate: what format ${from} did`;
    const lead = at === text.length && !text.endsWith('\n') ? '\n' : '';
    edits.push({ start: at, end: at, text: lead + renderPair(keys.at(-1)!, value, indent, comment) });
  }
  return edits;
}

/** The text with the edits applied (an insertion at the end of a removed range goes after the removal). */
function applyEdits(text: string, edits: Edit[]): string {
  const sorted = edits.map((e, i) => ({ ...e, i })).sort((a, b) => b.start - a.start || b.end - a.end || b.i - a.i);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** Sequences of scalars below `node` in flow style (`[a, b]`), as the kit's profiles write them. */
function flowScalarLists(node: Parameters<typeof visit>[0]): void {
  visit(node, {
    Seq(_, seq) {
      if (seq.items.every((item) => isScalar(item))) seq.flow = true;
    },
  });
}

/** The document written again by the yaml library with the net changes (comments kept, layout not). */
function rewrittenDocument(doc: Document, net: ReturnType<typeof netEdits>, migrated: Json): string {
  for (const dotted of net.removed) doc.deleteIn(dotted.split('.'));
  for (const dotted of [...net.replaced, ...net.added]) {
    const node = doc.createNode(valueAt(migrated, dotted));
    if (isCollection(node)) flowScalarLists(node);
    if (dotted === 'format' && isMap(doc.contents) && !doc.has('format'))
      doc.contents.items.unshift(doc.createPair('format', node));
    else doc.setIn(dotted.split('.'), node);
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** The migrated profile as YAML text: the original text with only the changed keys edited, when possible. */
export function migratedYaml(
  text: string,
  original: Json,
  migration: Migration,
): { text: string; layoutKept: boolean } {
  const net = netEdits(original, migration.value, allChanges(migration));
  const target = canonical(migration.value);
  const same = (out: string) => canonical(parseDocument(out, { uniqueKeys: true }).toJS()) === target;
  const edits = surgicalEdits(text, parseDocument(text, { uniqueKeys: true }), net, migration.value, migration.from);
  if (edits) {
    const out = applyEdits(text, edits);
    if (same(out)) return { text: out, layoutKept: true };
  }
  const out = rewrittenDocument(parseDocument(text, { uniqueKeys: true }), net, migration.value);
  if (!same(out)) throw new Error('profile migrate: the rewritten YAML does not hold the migrated profile');
  return { text: out, layoutKept: false };
}
