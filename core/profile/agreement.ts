/**
 * How far two profiles agree, leaf by leaf: the figure `profile discover` is judged by (a draft of a gateway running
 * a known profile agrees with it on at least 95 % of its leaves). A leaf is a scalar, a list or an empty mapping.
 * Lists whose order the format gives no meaning (a set of operations, of e-mail domains, of test cards, …) compare
 * as sets; every other list compares in order.
 */

/**
 * Leaves that name a profile rather than state a behaviour: the vendor's labels, which no probe can tell and a
 * reviewer writes. They are left out of the figure (`profile discover` marks them UNKNOWN).
 */
export const LABEL_LEAVES = ['name', 'version', 'description'] as const;

/** Lists compared as sets: the format says nothing of their order (`*` stands for one path segment). */
export const UNORDERED_LISTS = [
  'addressRestriction.operations',
  'review.triggers.shopperEmailDomains',
  'payments.declineRules',
  'payments.testCards.approve',
  'payments.testCards.decline',
  'transitions.*.from',
  'notifications.kinds.*.sentAfter',
  'payout.failureTypes',
  'signature.request.exclude',
  'signature.response.pairs.exclude',
  'responseFields.echoNormalised',
  'responseFields.omitted.*',
] as const;

function matches(pattern: string, path: string): boolean {
  const p = pattern.split('.');
  const q = path.split('.');
  return p.length === q.length && p.every((x, i) => x === '*' || x === q[i]);
}

/** Leaves of a profile as dotted paths with their values. */
export function profileLeafValues(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (!keys.length && prefix) out.set(prefix, value);
    for (const k of keys) profileLeafValues((value as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out.set(prefix, value);
  return out;
}

/** Canonical JSON (object keys sorted), so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** Whether two leaf values agree (sets for the unordered lists). */
export function leafEquals(path: string, a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b) && UNORDERED_LISTS.some((p) => matches(p, path)))
    return canonical([...a.map(canonical)].sort()) === canonical([...b.map(canonical)].sort());
  return canonical(a) === canonical(b);
}

/** The agreement of `other` with `reference` over the reference's leaves (the labels left out). */
export interface Agreement {
  /** Leaves of the reference profile. */
  leaves: number;
  agreeing: number;
  /** agreeing / leaves. */
  ratio: number;
  /** Reference leaves `other` holds otherwise (or not at all). */
  disagreements: { path: string; expected: unknown; received: unknown }[];
  /** Leaves `other` has that the reference lacks (an optional key it adds, such as a message pinned). */
  extra: { path: string; value: unknown }[];
}

/** Compare two profiles leaf by leaf. */
export function leafAgreement(reference: unknown, other: unknown): Agreement {
  const ref = profileLeafValues(reference);
  const got = profileLeafValues(other);
  for (const label of LABEL_LEAVES) {
    ref.delete(label);
    got.delete(label);
  }
  const disagreements: Agreement['disagreements'] = [];
  for (const [path, expected] of ref) {
    const received = got.get(path);
    if (!leafEquals(path, expected, received)) disagreements.push({ path, expected, received });
  }
  const extra = [...got].filter(([path]) => !ref.has(path)).map(([path, value]) => ({ path, value }));
  const agreeing = ref.size - disagreements.length;
  return { leaves: ref.size, agreeing, ratio: ref.size ? agreeing / ref.size : 1, disagreements, extra };
}
