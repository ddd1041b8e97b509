/**
 * Core types shared by the spec model, the engine, the suites, the reporters and the gateway.
 * The results types are generated from schemas/results.schema.json.
 */
import type {
  ConformanceRunResults,
  ResultsCheckResult,
  ResultsCheckStatus,
  ResultsEvidence,
  ResultsFinding,
  ResultsRequirementResult,
  ResultsShardRun,
  ResultsTotals,
} from './types/generated.js';

import type { DuplicateMember } from './codecs/json.js';
import type { Level, OperationKey, Requirement } from './spec/terms.js';
import type { OperationScope } from './spec/operations.js';

export type { Level, OperationKey, Requirement } from './spec/terms.js';

/** Every check family, in report order: the one list (suite files, listings and maps per family derive from it). */
export const FAMILIES = [
  'shape',
  'media',
  'conventions',
  'limits',
  'status',
  'security',
  'lifecycle',
  'events',
  'deep',
  'integrity',
] as const;

/** A check family; conformance levels and selections are lists of check ids per family. */
export type Family = (typeof FAMILIES)[number];

/** Severity of a finding or check: the level of the requirement it traces to, or `info` for information only. */
export type Severity = Exclude<Level, 'unspecified'> | 'info';

/** The request as sent: `body` is the structured payload (for checks), `evidence` is masked at recording time. */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Structured body before encoding (JSON object or form fields). Holds real card data: never print it. */
  body: Record<string, unknown> | undefined;
  /** The encoded body bytes as text (JSON or form). Never print it: use `Exchange.evidence`. */
  bodyText: string;
  /** `json` or `form` encoding. */
  encoding: 'json' | 'form' | 'raw';
  /** Source address the request was sent from, when not the default. */
  localAddress?: string;
}

/** The decoded response body. */
export type DecodedBody =
  /**
   * `duplicates`: member names an object of the text holds more than once (`JSON.parse` kept the last value of each;
   * core/codecs/json.ts), present only when there is one.
   */
  | { kind: 'json'; value: unknown; duplicates?: DuplicateMember[] }
  | { kind: 'xml'; root: string; value: Record<string, unknown> }
  | { kind: 'html'; form: CheckoutFormModel }
  | { kind: 'undecodable'; format: 'json' | 'xml' | 'html' | 'unknown'; problem: string }
  | { kind: 'empty' };

/** The data model of a hosted checkout page (schemas/checkout-form.schema.json). */
export interface CheckoutFormModel {
  forms: number;
  method: string;
  action: string;
  autoSubmit: boolean;
  autoSubmitBy: 'onload' | 'script' | 'none';
  inputs: Record<string, string>;
  inputTypes: Record<string, string>;
  /** Every input name in document order, repeats included. */
  inputOrder: string[];
  /**
   * Named submit buttons of the form in document order (`<button type=submit>`, `<input type=submit>`): a shopper
   * pressing one sends its name and value with the inputs. Absent when the reader does not collect them.
   */
  buttons?: { name: string; value: string }[];
}

/** The response as received (bounded by the size cap). */
export interface ReceivedResponse {
  status: number;
  headers: Record<string, string>;
  /** Body text (UTF-8), cut at the size cap. */
  bodyText: string;
  /** True when the body exceeded the size cap and was cut. */
  truncated: boolean;
  decoded: DecodedBody;
  /** Where the response carried the run's secret (any written form), noted when recorded: the kit keeps no clear copy in reports. */
  secretEchoed?: ('body' | 'header name' | 'header value')[];
  /** Length in bytes and sha-256 (hex) of the body as read, when known. */
  bytes?: { length: number; sha256: string };
}

/** Masked, printable evidence of one exchange. Built once, when the exchange is recorded (results.schema.json). */
export type Evidence = ResultsEvidence;

/** One HTTP request/response pair made by the kit. */
export interface Exchange {
  /** Unique within a run, e.g. `capture#3`. */
  id: string;
  operation: OperationKey | 'external';
  request: SentRequest;
  response?: ReceivedResponse;
  /** Transport failure instead of a response. */
  /** `off-target`: not sent, the URL is outside the target's origin and `allowedHosts`. */
  error?: { kind: 'timeout' | 'network' | 'too-large' | 'redirect' | 'off-target'; message: string };
  startedAt: string;
  durationMs: number;
  evidence: Evidence;
  /** True for a request the kit received (a notification): `response` is then the kit's own answer. */
  incoming?: boolean;
  /**
   * Short values the request sent in card fields (expiry, security code): masked where the answer holds them as a
   * whole value (core/mask.ts `maskEchoedValues`), in its evidence and in findings about it. Not enumerable: never
   * serialised.
   */
  readonly sentCardEchoes?: readonly string[];
}

/**
 * What the reports keep of an exchange: the masked evidence and the timings, never the request as sent (it holds
 * card data). The engine hands one per exchange to the reporters (HAR).
 */
export interface ExchangeRecord {
  id: string;
  operation: OperationKey | 'external';
  startedAt: string;
  durationMs: number;
  evidence: Evidence;
  error?: Exchange['error'];
  /** True for a request the kit received (a notification). */
  incoming?: boolean;
}

/**
 * One violated property, in the one shape every check and adapter produces: `expected` and `received` as data, the
 * message derived from them, schema findings with `keyword`, `schemaPath` and `params` (results.schema.json).
 */
export type Finding = ResultsFinding;

/** Outcome of one check. */
export type CheckStatus = ResultsCheckStatus;

/** What a precondition-wrapped check returns when it does not apply. */
export interface NotApplicable {
  notApplicable: string;
}

/**
 * The exchanges of a probe by step name. For a probe that declares its steps (`ProbeOf<S>`), each declared step is
 * there when the probe made it and no other name can be read: a renamed step is a compile error, not a check that
 * silently stops applying. Untyped (`S` = string): any name.
 */
export type StepRecord<S extends string = string> = string extends S
  ? Record<string, Exchange>
  : { readonly [K in S]?: Exchange };

/**
 * What a probe learned besides its exchanges (ids, amounts, why it stopped), by name. Core names no fact: the suites
 * declare each one with its type (`suites/facts.ts`, by declaration merging), so a check reads a fact typed and a
 * fact renamed is a compile error where it is read. A fact whose name the probe computes is named `<step>:<fact>`
 * and read through this index signature.
 */
export interface ObservationFacts {
  [computed: `${string}:${string}`]: unknown;
}

/**
 * The exchanges a probe made, by step name, with facts it learned (ids, amounts). `main` is the step most checks read.
 * Besides its declared steps, `steps` holds the set-up steps (a payment to act on, numbered repeats) that checks read
 * only as a list (`Object.values`).
 */
export interface Observation<S extends string = string> {
  probeId: string;
  operation: OperationKey;
  main: Exchange;
  steps: StepRecord<S>;
  facts: ObservationFacts;
  /** Set when the probe could not run (target unreachable, rate-limited, profile lacks a value). */
  inconclusive?: string;
}

/** What a check may read besides its observation. */
export interface CheckContext {
  spec: import('./spec/load.js').SpecModel;
  profile: import('./profile/load.js').Profile;
  config: RunConfigView;
  requirement(id: string): Requirement;
  /** Masks card numbers, security codes and the run's secret in a received value quoted in a message (set by the engine). */
  mask?(text: string): string;
  /** Whether a body's `encryption_data` verifies under the profile's scheme (undefined: no rule for it). */
  verifySignature?(
    operation: OperationKey,
    direction: 'request' | 'response',
    body: Record<string, unknown>,
  ): boolean | undefined;
}

/** The parts of the run configuration checks and probes may read (no secret). */
export interface RunConfigView {
  baseUrl: string;
  merchantId: string;
  accountId: string;
  orderPrefix: string;
  seed: number;
  /** Test cards by outcome (`approve`, `decline`). */
  cards: Record<string, string>;
  /** Valid APM payment_method values and one unknown to the target. */
  paymentMethods: { valid: string[]; unknown: string };
  /** Second source address for the refused-address check, when available. */
  unregisteredAddress?: string;
  /** Public URL of the kit's notification receiver, when events can be observed. */
  notifyUrl?: string;
  notifyWaitMs: number;
  /** Property-based negative cases generated per operation (the suites' default when absent). */
  negativeCases?: number;
  /** Generated valid and invalid requests per operation and variant of the deep family (0: the family does not run). */
  depth?: number;
}

/** A check: a small pure function over an observation. */
export interface Check {
  /** Stable id naming the property that must hold, camelCase (`batchResultsEchoRequestIds`). */
  id: string;
  family: Family;
  /** Probe whose observation the check reads. */
  probe: string;
  /** The operations it checks: a set of the spec (`'batch'`, `'all'`, …) or, for what one operation alone has, a list. */
  operations: OperationScope;
  /** Requirements the check traces to; the check's severity is the strongest level among them. */
  requirements: readonly string[];
  /** One-sentence description for `--list` and reports. */
  description: string;
  /** `info` for an information-only check: its findings are reported but never fail it. */
  severity?: 'info';
  run(observation: Observation, ctx: CheckContext): Finding[] | NotApplicable;
}

/** How the engine joins an observation rule's findings to the result of the check that read the observation. */
export type RuleEffect =
  /** Instead of the check's own verdict, which needed what the rule found missing (an answer). */
  | 'replaces'
  /** Beside the check's findings; an exchange is reported once per worker, by the first check reading it. */
  | 'joins'
  /** Only when the check could not run (skipped), as information. */
  | 'whenSkipped';

/** The check whose observation an observation rule judges. */
export interface RuleReader {
  checkId: string;
  operation: OperationKey;
  requirementIds: readonly string[];
}

/**
 * A property the engine judges on every observation any check reads (engine/rules.ts): an entry of the one table
 * beside the checks, never planned as a test of its own; its findings carry its id and go to the reading check's
 * result as `effect` says.
 */
export interface ObservationRule {
  /** Stable id naming the property that must hold, camelCase; unique across the table's checks and rules. */
  id: string;
  /** The one finding code it reports. */
  code: string;
  effect: RuleEffect;
  /** One-sentence description for listings and reports. */
  description: string;
  /** `info`: its findings never fail a check. */
  severity?: 'info';
  run(observation: Observation, ctx: CheckContext, reader: RuleReader): Finding[];
}

/** Sends requests for probes: builds, encodes and signs as the profile says, records masked evidence. */
export interface ProbeClient {
  /** A valid request body for an operation (from the spec's example and the profile), with a fresh order_no. */
  sample(operation: OperationKey, overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Sign (per profile) and send a body; `raw` sends bodyText as is (no signing); options change one thing. */
  send(
    operation: OperationKey,
    body: Record<string, unknown>,
    options?: {
      sign?: boolean;
      encoding?: 'json' | 'form';
      rawBody?: string;
      contentType?: string;
      localAddress?: string;
      path?: string;
      method?: string;
      /** Send the profile's extra request headers (default true). */
      profileHeaders?: boolean;
      /** Sign this body instead of the one sent (a request altered after signing). */
      signedBody?: Record<string, unknown>;
      /** `false`: the exchange is counted but its record is not kept for the reports (generated requests kept only when failing). */
      record?: boolean;
      /** `false`: an HTML page answering with a 4xx or 5xx is not read into a form model (its text and status are kept). */
      readErrorPages?: boolean;
    },
  ): Promise<Exchange>;
  /** A fresh, run-unique order number. */
  orderNo(): string;
  /**
   * Notifications received by the kit's receiver for a given order_no or request_id, waiting up to `ms` until there
   * are `atLeast` of them (default 1).
   */
  notifications(key: string, ms: number, atLeast?: number): Promise<Exchange[]>;
  /**
   * Whether a message's `encryption_data` verifies under the profile's scheme with the run's secret (the secret never
   * leaves the client); `undefined` when the profile does not sign that direction of that operation.
   */
  verifySignature?(
    operation: OperationKey,
    direction: 'request' | 'response',
    body: Record<string, unknown>,
  ): boolean | undefined;
  /**
   * Request a page outside the operations (an APM `issuer_url`, a form's `action`) as a shopper's browser would:
   * GET, or POST of form fields urlencoded; unsigned, no redirect followed, recorded as an `external` exchange whose
   * HTML body is decoded into a `CheckoutFormModel` when it holds a form.
   */
  follow?(url: string, request?: { method?: string; form?: Record<string, string> }): Promise<Exchange>;
  /** Make the kit's receiver answer notifications for `key` with a non-acknowledging status (to observe retries). */
  refuseNotifications?(key: string): void;
  /** Requests the kit's receiver refused so far for passing its bounds (body size, count per run, rate). */
  notificationRefusals?(): Promise<{ tooLarge: number; overCount: number; overRate: number }>;
  /** The run's ledger: every exchange of this worker's client with an operation, and the notifications received. */
  ledger?(): RunLedgerView;
}

/**
 * One exchange of the run's ledger: a request the kit sent to an operation of the interface and what came back, in
 * the order the answers came (`seq`), with whether the request authenticates (a signature that verifies, the run's
 * merchant and account, the profile's credential headers). Times are the worker's clock in milliseconds.
 */
export interface LedgerEntry {
  seq: number;
  operation: OperationKey;
  exchange: Exchange;
  authenticated: boolean;
  sentAt: number;
  answeredAt: number;
}

/** A notification the kit's receiver got, in the ledger. */
export interface LedgerNotification {
  seq: number;
  exchange: Exchange;
}

/** What the run's ledger holds: every exchange with an operation and every notification, up to its bound. */
export interface RunLedgerView {
  readonly entries: readonly LedgerEntry[];
  readonly notifications: readonly LedgerNotification[];
  /** Exchanges beyond the ledger's bound, not held (a deep run's tail). */
  readonly dropped: number;
}

/** A probe: one request recipe (or a stateful scenario) whose observation several checks read. */
export interface Probe {
  id: string;
  /** The operations it observes: a set of the spec or a list (see `Check.operations`). */
  operations: OperationScope;
  /**
   * The probe's duration is set by the target's clock (a notification wait, a retry schedule), not by its own
   * exchanges: a run starts such probes first, so the wait overlaps the other probes' exchanges.
   */
  waitsOnTarget?: boolean;
  /** The steps the probe records under a name checks read, each with what it is (`ProbeOf`). */
  steps?: Readonly<Record<string, string>>;
  /**
   * The probe reads the run's ledger: it is made only once every other observation of the worker is made (never
   * ahead of its tests), so it sees everything the run did.
   */
  readsLedger?: boolean;
  run(operation: OperationKey, client: ProbeClient, ctx: CheckContext): Promise<Observation>;
}

/** A probe that declares its steps: checks naming it read `Observation<S>` and only the steps it declares. */
export interface ProbeOf<S extends string> extends Probe {
  readonly steps: Readonly<Record<S, string>>;
}

/** Result of one check in one run (results.schema.json). */
export type CheckResult = ResultsCheckResult;

/** Overall verdict of a run. */
export type Verdict = ConformanceRunResults['verdict'];

/** Roll-up of one catalogue requirement over the check results tracing to it (results.schema.json). */
export type RequirementResult = ResultsRequirementResult;

/** Counts of a run (results.schema.json). */
export type RunTotals = ResultsTotals;

/** One shard run of a merged result (results.schema.json). */
export type ShardRun = ResultsShardRun;

/** What `results.json` holds and every reporter reads: the results format without its `$schema` and `schemaVersion`. */
export type RunResult = Omit<ConformanceRunResults, '$schema' | 'schemaVersion'>;
