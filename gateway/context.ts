/**
 * What every part of the gateway shares: the spec, the profile, the configuration, the state, the notifier,
 * the active fault's behaviour switches and the facts read once from the spec's schemas.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { OperationKey } from '../core/model.js';
import type { OperationModel, SpecModel } from '../core/spec/load.js';
import type { ErrorKind, Profile } from '../core/profile/load.js';
import type { GatewayConfig, ResolvedAccount } from './config.js';
import type { Session, Store } from './store.js';
import type { Notifier } from './notify.js';
import type { Reply } from './reply.js';
import type { BehaviourSwitches, FaultDefinition } from './faults.js';
import { itemSchemaId, nestedFields, numericFields, objectPropertyNames, propertyNames } from './schema-fields.js';
import { SpecError } from '../core/types/errors.js';

export type { ErrorKind };

/** Facts of one operation, read once from its schemas. */
export interface OperationFacts {
  model: OperationModel;
  /** Top-level fields of the response schema, in schema order. */
  responseFields: string[];
  /** Root element of an XML response (`xml.name` of the spec's 200 response schema). */
  xmlRoot?: string;
  /** Request fields that are objects or arrays. */
  nested: Set<string>;
  /** Request fields the schema types as numbers or integers. */
  numeric: Map<string, 'integer' | 'number'>;
  /** Batch operations: the request item schema, its fields, the result schema and its fields. */
  items?: { schemaId: string; fields: string[]; resultSchemaId: string; resultFields: string[] };
  /** Query and refund search: the schema and fields of a result item, and the fields of its nested objects. */
  records?: { list: string; schemaId: string; fields: string[]; objects: Record<string, string[]> };
}

/** Where the gateway's longest field value comes from. */
export interface FieldLength {
  max: number | undefined;
  from: 'profile' | 'configuration';
}

/** The longest field value a gateway accepts, and where it comes from. */
export function fieldLengthOf(gw: Pick<Gateway, 'fieldLength' | 'config'>): FieldLength {
  return gw.fieldLength ?? { max: gw.config.limits.maxFieldLength, from: 'configuration' };
}

/** The shared gateway context. */
export interface Gateway {
  spec: SpecModel;
  profile: Profile;
  config: GatewayConfig;
  /** The interface's `{base_url}` (configuration or listen address; never a request's Host header). */
  baseUrl: string;
  store: Store;
  notifier: Notifier;
  switches: Readonly<BehaviourSwitches>;
  /** An active fault's extra reason to refuse a request as invalid input. */
  refuseAlso?: FaultDefinition['refuse'];
  facts: Map<OperationKey, OperationFacts>;
  /**
   * The longest text value of a field (gateway/limits.ts `longFieldProblem`): the profile's `limits.maxFieldLength`,
   * or, when the profile does not state it, the configuration's (its default). Absent: the configuration's.
   */
  fieldLength?: FieldLength;
  log(line: string): void;
  now(): Date;
  /** The database of `serve --data`: an answer waits until every change made before it is committed. */
  durability?: Durability;
  /**
   * The PostgreSQL of a shared sandbox (`serve --database`): each request handled through `run`, one group at a time
   * across the processes, with the state brought up to date first (the records it names read), and its changes
   * committed before its answer.
   */
  shared?: { run<T>(handle: () => T, names?: RecordNames): Promise<T> };
}

/** What a request may look up (gateway/shared-names.ts reads it from the request; a shared sandbox reads those rows first). */
export interface RecordNames {
  /** The account named by the body (`merchant_id`, `account_id`), when it names one. */
  account?: { merchantId: string; accountId: string };
  /** Transaction ids. */
  transactions: string[];
  /** Order numbers of the account. */
  orders: string[];
  /** The account's latest payments and refunds (a query or refund search without selectors). */
  latest: boolean;
  payouts: string[];
  tokens: string[];
  sessions: string[];
}

/** What the server needs of the database: whether changes wait to be committed, and a call once they are. */
export interface Durability {
  pending(): boolean;
  whenDurable(done: (error?: Error) => void): void;
}

/** A parsed, routed request as the operations see it. */
export interface GatewayRequest {
  op: OperationFacts;
  body: Record<string, unknown>;
  encoding: 'json' | 'form';
  /** A form body's fields as the text sent, where the profile keeps nested values as text (`formNestedValues: text`). */
  formText?: Record<string, string>;
  /** The merchant account; operations run only for known accounts. */
  account: ResolvedAccount;
  remoteAddress: string;
  headers: IncomingHttpHeaders;
}

/** A reason to refuse a request, with the profile's error kind. */
export interface Refusal {
  kind: ErrorKind;
  reason: string;
}

/** One operation of the interface. */
export interface OperationHandler {
  /** Refusals the schemas cannot express. Reads the state, changes nothing. */
  refusals?(req: GatewayRequest, gw: Gateway): Refusal[];
  /** Performs the operation. Synchronous: the read-check-write of each transaction is atomic. */
  run(req: GatewayRequest, gw: Gateway): Reply;
}

function xmlRootOf(spec: SpecModel, model: OperationModel): string | undefined {
  const content: Record<string, { schema?: { xml?: { name?: string } } }> =
    spec.openapi.paths[model.path]?.post?.responses?.['200']?.content ?? {};
  return Object.values(content).find((media) => media.schema?.xml?.name)?.schema?.xml?.name;
}

/** Read the facts of every operation from the spec. */
export function operationFacts(spec: SpecModel): Map<OperationKey, OperationFacts> {
  const out = new Map<OperationKey, OperationFacts>();
  for (const model of spec.operations.values()) {
    const facts: OperationFacts = {
      model,
      responseFields: propertyNames(spec, model.responseSchemaId),
      nested: nestedFields(spec, model.requestSchemaId),
      numeric: numericFields(spec, model.requestSchemaId),
      xmlRoot: xmlRootOf(spec, model),
    };
    if (model.batch) {
      const schemaId = itemSchemaId(spec, model.requestSchemaId, model.batch.orders);
      const resultSchemaId = itemSchemaId(spec, model.responseSchemaId, model.batch.orders);
      facts.items = {
        schemaId,
        fields: propertyNames(spec, schemaId),
        resultSchemaId,
        resultFields: propertyNames(spec, resultSchemaId),
      };
    }
    if (model.selectionLimit) {
      const list = facts.responseFields.find(
        (f) => f !== 'encryption_data' && nestedFields(spec, model.responseSchemaId).has(f),
      );
      if (!list) throw new SpecError(`gateway: ${model.key} response has no result list`);
      const schemaId = itemSchemaId(spec, model.responseSchemaId, list);
      const fields = propertyNames(spec, schemaId);
      const objects = Object.fromEntries(
        [...nestedFields(spec, schemaId)].map((f) => [f, objectPropertyNames(spec, schemaId, f)]),
      );
      facts.records = { list, schemaId, fields, objects };
    }
    out.set(model.key, facts);
  }
  return out;
}

/** The facts of an operation (every operation of the spec has them). */
export function factsOf(gw: Gateway, key: OperationKey): OperationFacts {
  const facts = gw.facts.get(key);
  if (!facts) throw new SpecError(`gateway: the spec has no operation ${key}`);
  return facts;
}

const fieldSets = new WeakMap<readonly string[], Set<string>>();

/** Keys of `values` in the order of `fields`, then any other key in insertion order; undefined values dropped. */
export function ordered(fields: readonly string[], values: Record<string, unknown>): Record<string, unknown> {
  let known = fieldSets.get(fields);
  if (!known) fieldSets.set(fields, (known = new Set(fields)));
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = Object.hasOwn(values, f) ? values[f] : undefined;
    if (v !== undefined) out[f] = v;
  }
  for (const k of Object.keys(values)) {
    const v = values[k];
    if (known.has(k) || v === undefined) continue;
    // A request key named __proto__ (echoed by the payout) must stay a plain member.
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** Copy into `values` the request fields the operation's echo rules say the response repeats. */
export function echo(op: OperationModel, request: Record<string, unknown>, values: Record<string, unknown>): void {
  for (const rule of op.echo) for (const f of rule.fields) if (request[f] !== undefined) values[f] = request[f];
}

/** Most orders a batch request of an operation may hold: the spec's `maxItems` (moved by an active fault). */
export function batchLimit(gw: Gateway, op: OperationModel): number {
  return (op.batch?.maxItems ?? 0) + gw.switches.batchLimitDelta;
}

/** Most orders a query or refund search may select: the spec's `x-pagi-limit` (moved by an active fault). */
export function selectionLimit(gw: Gateway, op: OperationModel): number {
  return (op.selectionLimit?.maxOrders ?? 0) + gw.switches.selectionLimitDelta;
}

/** Whether an over-limit request is refused as a whole (the profile's choice, unless a fault truncates silently). */
export function refusesOverLimit(gw: Gateway): boolean {
  return gw.profile.limits.overLimit.refuseWhole && !gw.switches.truncateOverLimit;
}

/** A request field as a string, or undefined when absent or not a string. */
export function str(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Open an APM or checkout session, with the configured lifetime and cap. The session keeps the request without the
 * profile's card fields (the payment is made with the card of the payment page, if any): no full card number or
 * security code is kept, nor written to the database of `serve --data`.
 */
export function openSession(gw: Gateway, session: Session): void {
  const c = gw.profile.fields.card;
  const card = [c.number, c.expiryMonth, c.expiryYear, c.securityCode];
  const r = session.request;
  if (card.some((f) => Object.hasOwn(r, f)))
    session.request = Object.fromEntries(Object.entries(r).filter(([k]) => !card.includes(k)));
  gw.store.addSession(session, gw.config.sessions.ttlSeconds * 1000, gw.config.sessions.maxSessions);
}

/** A session by token while it lives (its pages answer unknownRecord after the configured lifetime). */
export function liveSession(gw: Gateway, token: string): Session | undefined {
  return gw.store.liveSession(token, gw.now(), gw.config.sessions.ttlSeconds * 1000);
}
