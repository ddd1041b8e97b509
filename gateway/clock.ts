/** The timestamp forms of the interface, all written in UTC. */

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function parts(d: Date) {
  return {
    y: pad(d.getUTCFullYear(), 4),
    mo: pad(d.getUTCMonth() + 1),
    d: pad(d.getUTCDate()),
    h: pad(d.getUTCHours()),
    mi: pad(d.getUTCMinutes()),
    s: pad(d.getUTCSeconds()),
  };
}

/** `YYYYMMDDHHMMSS` (query and refund-search results). */
export function compactTimestamp(d: Date): string {
  const p = parts(d);
  return `${p.y}${p.mo}${p.d}${p.h}${p.mi}${p.s}`;
}

/** ISO 8601 with a UTC offset, `YYYY-MM-DDTHH:MM:SS+00:00` (payout timestamps). */
export function offsetDateTime(d: Date): string {
  const p = parts(d);
  return `${p.y}-${p.mo}-${p.d}T${p.h}:${p.mi}:${p.s}+00:00`;
}

/** `YYYY-MM-DD`. */
export function isoDate(d: Date): string {
  const p = parts(d);
  return `${p.y}-${p.mo}-${p.d}`;
}

/** `YYYY-MM-DD HH:MM:SS` (direct payment `recurring_deduction_time`). */
export function dateTime(d: Date): string {
  const p = parts(d);
  return `${p.y}-${p.mo}-${p.d} ${p.h}:${p.mi}:${p.s}`;
}

/** `YYYYMMDD`, used in gateway identifiers. */
export function compactDate(d: Date): string {
  const p = parts(d);
  return `${p.y}${p.mo}${p.d}`;
}

/** Midnight (UTC) of the day `count` intervals after `from`; `interval` is day, week, month or year (day otherwise). */
export function addInterval(from: Date, interval: string, count: number): Date {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  switch (interval) {
    case 'week':
      d.setUTCDate(d.getUTCDate() + 7 * count);
      break;
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + count);
      break;
    case 'year':
      d.setUTCFullYear(d.getUTCFullYear() + count);
      break;
    default:
      d.setUTCDate(d.getUTCDate() + count);
  }
  return d;
}
