/**
 * Generates the per-operation parts of schemas/profile.schema.json from the spec: every object of the schema carrying
 * `x-pagi-operations: {set, label, entry, entries?, required?, optional?, notes?}` gets one property per operation of
 * that set of the spec (core/spec/operations.ts), the entry schema (`entries` of an operation where it differs) with a
 * description naming the operation and its path, and (`required`) every such operation required but the `optional`
 * ones; an `enum` carrying `x-pagi-operations: {set}` lists the set's operations. `--check` exits 1 when the committed
 * file is stale. An operation added to the spec thus enters the profile format here, and a profile that does not name
 * it gives it the profile-wide default (`operationDefaults`, core/profile/operations.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { kitSpec, type SpecModel } from '../core/spec/load.js';
import { operationSet, type OperationSetName } from '../core/spec/operations.js';
import { SCHEMAS_DIR } from '../core/spec/paths.js';

export const PROFILE_SCHEMA_FILE = path.join(SCHEMAS_DIR, 'profile.schema.json');

/** How a per-operation part of the schema is generated. */
interface PerOperation {
  set: OperationSetName;
  /** Start of each property's description (`Request media type of`): the operation's key and path follow. */
  label?: string;
  /** The schema of an operation's entry (`{op}` in a string stands for the operation's key). */
  entry?: Record<string, unknown>;
  /** Entries of operations that differ from `entry`. */
  entries?: Record<string, Record<string, unknown>>;
  /** Every operation of the set is required, but those listed `optional`. */
  required?: boolean;
  optional?: string[];
  /** Words after an operation's key in its description (`(optional; default: …)`). */
  notes?: Record<string, string>;
}

/** `Create a payout to a beneficiary (…)` → `payout to a beneficiary`; `APM payment` stays. */
function summaryWords(summary: string): string {
  const s = summary.replace(/^Create an? /, '').replace(/ \([^)]*\)$/, '');
  return /^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s;
}

/** `POST /v1/authorise with \`payment_method\`: APM payment`. */
function where(spec: SpecModel, op: string): string {
  const model = spec.operations.get(op as never)!;
  const when = model.when?.present
    ? ` with \`${model.when.present}\``
    : model.when?.absent
      ? ` without \`${model.when.absent}\``
      : '';
  return `POST ${model.path}${when}: ${summaryWords(model.summary)}`;
}

function withOperation<T>(value: T, op: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll('{op}', op)) as T;
}

function generatePart(spec: SpecModel, node: Record<string, any>, g: PerOperation): void {
  const ops = operationSet(spec, g.set);
  if (Array.isArray(node.enum) || !g.entry) {
    node.enum = [...ops];
    return;
  }
  node.properties = Object.fromEntries(
    ops.map((op) => {
      const { type, $ref, ...rest } = withOperation(g.entries?.[op] ?? g.entry!, op) as Record<string, unknown>;
      const note = g.notes?.[op] ? ` ${g.notes[op]}` : '';
      const description = `${g.label} ${op}${note}. ${where(spec, op)}.`;
      return [op, { ...(type ? { type } : {}), ...($ref ? { $ref } : {}), description, ...rest }];
    }),
  );
  if (g.required) node.required = ops.filter((op) => !g.optional?.includes(op));
}

/** The profile schema with its per-operation parts generated from `spec`. */
export function generateProfileSchema(
  spec: SpecModel = kitSpec(),
  text = fs.readFileSync(PROFILE_SCHEMA_FILE, 'utf8'),
) {
  const schema = JSON.parse(text) as Record<string, unknown>;
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    const record = node as Record<string, any>;
    if (record['x-pagi-operations']) generatePart(spec, record, record['x-pagi-operations'] as PerOperation);
    for (const [key, value] of Object.entries(record)) if (key !== 'x-pagi-operations') walk(value);
  };
  walk(schema);
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const current = fs.readFileSync(PROFILE_SCHEMA_FILE, 'utf8');
  const text = generateProfileSchema(kitSpec(), current);
  if (process.argv.includes('--check')) {
    if (current !== text) {
      console.error('schemas/profile.schema.json is stale: run npm run gen:profile-schema');
      process.exit(1);
    }
    console.log('schemas/profile.schema.json is up to date');
  } else {
    fs.writeFileSync(PROFILE_SCHEMA_FILE, text);
    console.log('wrote schemas/profile.schema.json');
  }
}
