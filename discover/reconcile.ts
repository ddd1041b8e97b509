/**
 * The last step before assembling the draft: identity points, and open points given the value the rest of the
 * draft makes most likely, so the draft obeys the format's consistency rules (a default never contradicts what
 * discovery decided): a status value no probe saw takes the failure value the gateway uses elsewhere, and never a
 * value another meaning of its field already has.
 */
import type { Facts } from './context.js';
import type { Session } from './session.js';

/** Keys of `statusValues` groups meaning a failure (their unseen values follow the gateway's other failures). */
const FAILURE_KEYS = new Set(['failure', 'notFound', 'declined']);

function statusGroups(s: Session): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [group, values] of Object.entries(s.defaults.statusValues)) {
    out[group] = {};
    for (const [key, fallback] of Object.entries(values as Record<string, string>)) {
      const path = `statusValues.${group}.${key}`;
      out[group]![key] = s.draft.has(path) ? s.draft.get<string>(path)! : fallback;
    }
  }
  return out;
}

/**
 * A failure meaning decided with the value a success meaning of its field also has: the probe meant to reach that
 * failure did not (a decline card the gateway approves, say). The failure is left open, and given a free value below.
 * Two other meanings decided with one value are both left open.
 */
function collidingFailures(s: Session): void {
  const d = s.draft;
  for (const [group, values] of Object.entries(s.defaults.statusValues)) {
    const decided = Object.keys(values as Record<string, string>)
      .filter((k) => k !== 'successMessage' && d.has(`statusValues.${group}.${k}`))
      .map((k) => ({ key: k, value: d.get<string>(`statusValues.${group}.${k}`)! }));
    for (const { key, value } of decided) {
      if (!FAILURE_KEYS.has(key)) continue;
      const other = decided.find((o) => o.key !== key && o.value === value && !FAILURE_KEYS.has(o.key));
      if (other)
        d.unknown(
          `statusValues.${group}.${key}`,
          `the probe meant to reach '${key}' answered ${value}, the value of '${other.key}': the state was not reached`,
        );
    }
    // Any other two meanings answered with one value (a 3-D Secure request the gateway did not take answered as
    // one without): which probe reached its meaning none tells, so neither is stated.
    const left = decided.filter(({ key }) => d.has(`statusValues.${group}.${key}`));
    for (const { key, value } of left) {
      const alike = left.filter((o) => o.value === value).map((o) => o.key);
      if (alike.length > 1)
        d.unknown(
          `statusValues.${group}.${key}`,
          `the probes meant to reach ${alike.map((k) => `'${k}'`).join(' and ')} all answered ${value}: which one reached its meaning no probe tells`,
        );
    }
  }
}

/** A transition list a probe found empty: no state allowed it, so the probe did not reach the operation's rule. */
function emptyTransitions(s: Session): void {
  const d = s.draft;
  for (const op of Object.keys(s.defaults.transitions)) {
    const path = `transitions.${op}.from`;
    const from = d.written<unknown[]>(path) ?? d.written<{ from?: unknown[] }>(`transitions.${op}`)?.from;
    if (!Array.isArray(from) || from.length) continue;
    const fallback = ((s.defaults.transitions as Record<string, { from?: string[] }>)[op]?.from ?? []) as string[];
    d.unknown(
      path,
      `${op} was refused in every state tried (the probe's item may be what the gateway refuses): the format default is kept`,
      fallback,
    );
    // A state now allowed is no longer refused.
    const refusals = d.written<Record<string, string>>(`transitions.${op}.refusals`);
    if (refusals && fallback.some((st) => st in refusals))
      d.unknown(
        `transitions.${op}.refusals`,
        `the refusals seen, without the states the default allows (${fallback.join(', ')}): check them`,
        Object.fromEntries(Object.entries(refusals).filter(([st]) => !fallback.includes(st))),
      );
  }
}

/** Give the open status values the gateway's usual failure value, and make every group's values distinct. */
function statusValues(s: Session): void {
  const d = s.draft;
  const groups = statusGroups(s);
  const failures = new Map<string, number>();
  for (const [group, values] of Object.entries(groups))
    for (const [key, v] of Object.entries(values))
      if (key === 'failure' && d.has(`statusValues.${group}.${key}`)) failures.set(v, (failures.get(v) ?? 0) + 1);
  const usual = [...failures].sort((a, b) => b[1] - a[1])[0]?.[0];
  for (const [group, values] of Object.entries(groups)) {
    for (const key of Object.keys(values)) {
      const path = `statusValues.${group}.${key}`;
      // A point a row left open keeps its own question (and partial finding).
      if (d.covers(path) || key === 'successMessage') continue;
      const taken = new Set(
        Object.entries(values)
          .filter(([k]) => k !== key && k !== 'successMessage')
          .map(([, v]) => v),
      );
      let value = values[key]!;
      let why = 'no probe saw it: the format default';
      if (
        FAILURE_KEYS.has(key) &&
        usual !== undefined &&
        !taken.has(usual) &&
        group !== 'order_status' &&
        group !== 'payment_status'
      ) {
        value = usual;
        why = `no probe saw it: the failure value the gateway uses for ${failures.get(usual)} other status field(s)`;
      }
      // A value another meaning of the field has: the next free one.
      let n = 0;
      while (taken.has(value) && n < 1000) {
        n++;
        value = /^[0-9]+$/.test(value) ? String(Number(value) + 1).padStart(value.length, '0') : `${values[key]}_${n}`;
        why = 'no probe saw it: a value no other meaning of the field has';
      }
      values[key] = value;
      d.unknown(path, `${why}; check it`, value);
    }
  }
}

export function reconcile(s: Session, facts: Facts): void {
  void facts;
  const d = s.draft;
  const host = new URL(s.options.baseUrl).host;
  d.unknown(
    'name',
    'name the gateway (the profile identifier reports show)',
    `discovered-${host.replace(/[^A-Za-z0-9]+/g, '-')}`,
  );
  d.unknown('version', 'the profile version (change it whenever a behaviour changes)', '0.1.0');
  d.unknown(
    'description',
    'describe the gateway (reports show this text)',
    `Draft profile of the gateway at ${s.options.baseUrl}, written by pagi-conform profile discover.`,
  );
  collidingFailures(s);
  emptyTransitions(s);
  statusValues(s);
  // Notifications signed as responses need signed responses.
  const responseSigned =
    (s.draft.get<{ signed: boolean }>('signature.response')?.signed ?? d.get<boolean>('signature.response.signed')) !==
    false;
  if (!responseSigned && !d.has('notifications.signature'))
    d.unknown('notifications.signature', 'responses are not signed: notifications are assumed unsigned', 'none');
  if (!responseSigned && d.get<boolean>('errors.signed'))
    d.unknown(
      'errors.signed',
      'refusals carry encryption_data while answers do not: the format cannot state it',
      false,
    );
}
