/**
 * The exchanges a finding rests on as steps to replay: in the order the kit sent them, each naming the identifiers
 * it sends that an earlier step's answer produced (a capture sending the `transaction_id` the payment answered). A
 * replay of the curl lines makes new transactions: those are the values to take from the replayed earlier answers.
 */
import type { Exchange, Finding } from '../core/model.js';

/** One step of a finding: an exchange with its evidence and what it takes from earlier answers. */
export type FindingStep = NonNullable<Finding['exchanges']>[number];
type Use = NonNullable<FindingStep['uses']>[number];

/** The shortest value taken for an identifier (shorter ones, `1` or `OK`, match by chance). */
const MIN_ID_CHARS = 4;
/** Keys whose values identify what an answer created: `transaction_id`, `refund_reference_id`, `token`, `payout_id`. */
const ID_KEY = /(^|_)(id|token|reference|ref)$/i;

/** Where `id` was sent in its client's order: the counter of `operation#tag.n`. */
function sentIndex(id: string): { tag: string; n: number } | undefined {
  const m = /#(.*)\.([0-9]+)$/.exec(id);
  return m ? { tag: m[1]!, n: Number(m[2]) } : undefined;
}

/** Order of sending: by the client's counter when both come from one client, else by start time. */
function bySending(a: Exchange, b: Exchange): number {
  const x = sentIndex(a.id);
  const y = sentIndex(b.id);
  if (x && y && x.tag === y.tag) return x.n - y.n;
  return a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0;
}

/** Every string leaf of a value with its JSON pointer and key. */
function leaves(value: unknown, pointer = '', key = ''): { pointer: string; key: string; text: string }[] {
  if (typeof value === 'string') return [{ pointer, key, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${pointer}/${i}`, key));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) =>
      leaves(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, k),
    );
  return [];
}

/** The decoded answer of an exchange (JSON or XML), if any. */
function answerOf(x: Exchange): unknown {
  const decoded = x.response?.decoded;
  return decoded?.kind === 'json' || decoded?.kind === 'xml' ? decoded.value : undefined;
}

/** The identifiers an answer produced: id-like values it holds that its own request did not send. */
function producedBy(x: Exchange): Map<string, string> {
  const sent = new Set(leaves(x.request.body).map((l) => l.text));
  const out = new Map<string, string>();
  for (const l of leaves(answerOf(x)))
    if (l.text.length >= MIN_ID_CHARS && ID_KEY.test(l.key) && !sent.has(l.text) && !out.has(l.text))
      out.set(l.text, l.pointer);
  return out;
}

/**
 * The steps of a finding resting on `exchanges` (the failing one among them): sorted in sending order, each with the
 * identifiers it sends that the answer of an earlier step produced (the first such step).
 */
export function findingSteps(exchanges: readonly Exchange[]): FindingStep[] {
  const sorted = [...exchanges].sort(bySending);
  const produced: { from: string; ids: Map<string, string> }[] = [];
  return sorted.map((x) => {
    const uses: Use[] = [];
    for (const l of leaves(x.request.body)) {
      const source = produced.find((p) => p.ids.has(l.text));
      if (source) uses.push({ field: l.pointer, value: l.text, from: source.from, fromField: source.ids.get(l.text)! });
    }
    produced.push({ from: x.id, ids: producedBy(x) });
    return { exchangeId: x.id, evidence: x.evidence, ...(uses.length ? { uses } : {}) };
  });
}
