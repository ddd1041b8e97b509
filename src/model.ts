/**
 * Core types shared by the spec model, the engine, the suites, the reporters and the gateway.
 */

import type { Level, OperationKey, Requirement } from './spec/terms.js';

export type { Level, OperationKey, Requirement } from './spec/terms.js';

/** Every check family, in report order: the one list (suite files, listings and maps per family derive from it). */
export const FAMILIES = ['shape', 'media', 'conventions', 'limits', 'status', 'security', 'lifecycle', 'events', 'deep'] as const;

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
  | { kind: 'json'; value: unknown }
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

/** Masked, printable evidence of one exchange. Built once, when the exchange is recorded. */
export interface Evidence {
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    bodyExcerpt: string;
    /** Length in bytes and sha-256 (hex) of the body as read: what identifies it once only the excerpt is kept. */
    bodyBytes?: number;
    bodySha256?: string;
    /** The body was longer than the response size cap. */
    truncated?: boolean;
  };
  /** A curl command line reproducing the request (masked: card data and secrets replaced). */
  curl: string;
}

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

/** One violated property, in the one shape every check and adapter produces. */
export interface Finding {
  checkId: string;
  requirementIds: string[];
  /** Stable machine code, UPPER_SNAKE (e.g. `FIELD_FORMAT`). */
  code: string;
  severity: Severity;
  /** Fixed title per code. */
  title: string;
  /** "expected … / received …" prose. */
  message: string;
  location: { operation: OperationKey | 'external'; pointer: string; exchangeId?: string };
  evidence?: Evidence;
}

/** Outcome of one check. */
export type CheckStatus = 'passed' | 'failed' | 'waived' | 'skipped' | 'not_applicable';

/** What a precondition-wrapped check returns when it does not apply. */
export interface NotApplicable {
  notApplicable: string;
}

/** The exchanges a probe made, by step name, with facts it learned (ids, amounts). `main` is the step most checks read. */
export interface Observation {
  probeId: string;
  operation: OperationKey;
  main: Exchange;
  steps: Record<string, Exchange>;
  facts: Record<string, unknown>;
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
  verifySignature?(operation: OperationKey, direction: 'request' | 'response', body: Record<string, unknown>): boolean | undefined;
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
  operations: readonly OperationKey[];
  /** Requirements the check traces to; the check's severity is the strongest level among them. */
  requirements: readonly string[];
  /** One-sentence description for `--list` and reports. */
  description: string;
  /** `info` for an information-only check: its findings are reported but never fail it. */
  severity?: 'info';
  run(observation: Observation, ctx: CheckContext): Finding[] | NotApplicable;
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
  verifySignature?(operation: OperationKey, direction: 'request' | 'response', body: Record<string, unknown>): boolean | undefined;
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
}

/** A probe: one request recipe (or a stateful scenario) whose observation several checks read. */
export interface Probe {
  id: string;
  operations: readonly OperationKey[];
  /**
   * The probe's duration is set by the target's clock (a notification wait, a retry schedule), not by its own
   * exchanges: a run starts such probes first, so the wait overlaps the other probes' exchanges.
   */
  waitsOnTarget?: boolean;
  run(operation: OperationKey, client: ProbeClient, ctx: CheckContext): Promise<Observation>;
}

/** Result of one check in one run. */
export interface CheckResult {
  checkId: string;
  operation: OperationKey;
  family: Family;
  requirementIds: string[];
  severity: Severity;
  status: CheckStatus;
  /** Why skipped, not applicable or waived. */
  reason?: string;
  findings: Finding[];
  durationMs: number;
}

/** Overall verdict of a run. */
export type Verdict = 'CONFORMANT' | 'NOT CONFORMANT' | 'INCONCLUSIVE';

/** Roll-up of one catalogue requirement over the check results tracing to it. */
export interface RequirementResult {
  id: string;
  level: Level;
  /**
   * `failed` > `waived` > `skipped` > `passed` > `not_applicable` over its checks, a failed (or waived) check counting as
   * failed (waived) only where a failing finding names the requirement, else as passed; `untested` when checks exist but
   * none ran in this run, `no_check` when no check traces to it, `untestable` for `unspecified` requirements.
   */
  status: CheckStatus | 'untested' | 'no_check' | 'untestable';
  /** `<operation>/<checkId>` of every result tracing to the requirement. */
  checks: string[];
}

/** Counts of a run. */
export interface RunTotals {
  /** Check results (one per operation and check). */
  checks: number;
  byStatus: Record<CheckStatus, number>;
  /** Findings of failed and waived checks by severity (information findings of passed checks included under `info`). */
  findings: Record<Severity, number>;
  /** HTTP exchanges the kit made (notifications received not included). */
  exchanges: number;
}

/** One shard run of a merged result. */
export interface ShardRun {
  /** `i/n`. */
  shard: string;
  seed: number;
  commandLine: string[];
  startedAt: string;
  endedAt: string;
  /**
   * Requests the shard sent. Their sum can exceed the merged `totals.exchanges`: an observation shared by families
   * that ran in different shards is made by each of them, and counted once in the totals, as the unsharded run makes it.
   */
  exchangesSent: number;
}

/** What `results.json` holds and every reporter reads. */
export interface RunResult {
  metadata: {
    kitVersion: string;
    nodeVersion: string;
    /** The command line (or `run()` options) the run was started with, secrets masked. */
    commandLine: string[];
    spec: { root: string; digest: string };
    profile: { name: string; version: string; description?: string; file: string; digest: string };
    /** sha256 of the effective configuration with the secret masked. */
    configDigest: string;
    /**
     * `allowedBy`: what let the run move money on the target (`loopback`, `sandbox`: environment: sandbox,
     * `allow-live`: --allow-live); `allowedHosts`: hosts besides the target's origin the kit could request.
     */
    target: { baseUrl: string; embedded: boolean; allowedBy?: 'loopback' | 'sandbox' | 'allow-live'; allowedHosts?: string[] };
    seed: number;
    failOn: Severity;
    selection: { only: string[]; skip: string[]; shard?: string };
    startedAt: string;
    endedAt: string;
    durationMs: number;
    /** The shard runs a merged result was made of (`pagi-conform merge`), in shard order. */
    shards?: ShardRun[];
  };
  verdict: Verdict;
  /** Process exit code of the verdict: 0 CONFORMANT, 1 NOT CONFORMANT, 3 INCONCLUSIVE. */
  exitCode: 0 | 1 | 3;
  /** One sentence per reason behind the verdict. */
  verdictReasons: string[];
  /**
   * Present when `--only`/`--skip` left checks out: the verdict is about the selection, not a certification
   * (`verdictReasons` ends with "partial run: N must checks not selected — not a certification.").
   */
  partial?: { notSelected: number; mustNotSelected: number };
  coverage: {
    /** Requirements whose level is not `unspecified`. */
    testable: number;
    /** Testable requirements with at least one check that ran (passed, failed or waived). */
    checked: number;
    /** Testable requirements no check ran for, by id. */
    unchecked: string[];
  };
  checks: CheckResult[];
  requirements: RequirementResult[];
  totals: RunTotals;
  /** Expired or unused waivers, shards, kit errors: one sentence each. */
  warnings: string[];
  /** Set when a signal stopped the run: the verdict is then INCONCLUSIVE. */
  interrupted?: { signal: 'SIGINT' | 'SIGTERM'; checksRun: number; checksSelected: number };
}
