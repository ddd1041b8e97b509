/** Waivers: a YAML list of {check, reason, expires[, operation]} turning named failures into waived ones until expiry. */
import { didYouMean } from '../core/config/suggest.js';
import { readYamlFile } from '../core/yaml.js';
import type { OperationKey } from '../core/model.js';
import { UsageError } from '../core/config/options.js';

/** One waiver. `expires` is a UTC date (YYYY-MM-DD); the waiver holds through that day. */
export interface Waiver {
  check: string;
  reason: string;
  expires: string;
  operation?: OperationKey;
}

const DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

function field(entry: Record<string, unknown>, name: string, where: string): string {
  const value = entry[name];
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value !== 'string' || !value.trim()) throw new UsageError(`${where} needs a non-empty '${name}'.`);
  return value.trim();
}

/** Read and check a waiver file. */
export function loadWaivers(file: string): Waiver[] {
  let doc: unknown;
  try {
    doc = readYamlFile(file);
  } catch (e) {
    if (e instanceof UsageError) throw e; // not YAML: file:line:column already
    throw new UsageError(
      `Cannot read the waiver file ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check the --waivers path.`,
    );
  }
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc))
    throw new UsageError(`The waiver file ${file} must hold a YAML list of {check, reason, expires}.`);
  return doc.map((entry, i) => {
    const where = `Waiver ${i + 1} of ${file}`;
    if (!entry || typeof entry !== 'object')
      throw new UsageError(`${where} must be a mapping with check, reason and expires.`);
    const known = new Set(['check', 'reason', 'expires', 'operation']);
    const extra = Object.keys(entry).find((k) => !known.has(k));
    if (extra)
      throw new UsageError(
        `${where} has an unknown key '${extra}'${didYouMean(extra, [...known]) || '.'} A waiver holds check, reason, expires and operation.`,
      );
    const waiver: Waiver = {
      check: field(entry, 'check', where),
      reason: field(entry, 'reason', where),
      expires: field(entry, 'expires', where),
    };
    if (!DATE.test(waiver.expires) || Number.isNaN(Date.parse(`${waiver.expires}T00:00:00Z`))) {
      throw new UsageError(`${where} has expires '${waiver.expires}'; write a date as YYYY-MM-DD.`);
    }
    if (entry.operation !== undefined) waiver.operation = field(entry, 'operation', where) as OperationKey;
    return waiver;
  });
}

/** Whether a waiver still holds on `today` (YYYY-MM-DD, UTC). */
export function waiverActive(waiver: Waiver, today: string): boolean {
  return today <= waiver.expires;
}

/** The waiver naming a check result, if any (active or not). */
export function waiverFor(waivers: readonly Waiver[], checkId: string, operation: OperationKey): Waiver | undefined {
  return waivers.find((w) => w.check === checkId && (!w.operation || w.operation === operation));
}

/** Warnings about waivers: expired ones, and ones naming no known check. */
export function waiverWarnings(waivers: readonly Waiver[], today: string, checkIds: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const w of waivers) {
    if (!checkIds.has(w.check)) out.push(`Waiver for '${w.check}' names no check of the registry.`);
    else if (!waiverActive(w, today)) out.push(`Waiver for '${w.check}' expired on ${w.expires}; its failures stand.`);
  }
  return out;
}
