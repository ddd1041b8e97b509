/**
 * The facts probes hand checks besides their exchanges, each named with its type: `Observation.facts` is
 * `ObservationFacts` (core/model.ts), which this module fills by declaration merging. A check reads a fact typed,
 * without a cast; a fact renamed or retyped here is a compile error where a probe sets it and where a check reads it.
 * Facts whose name a probe computes (`<step>:followUp`) are the index signatures at the end.
 */
import type { RunLedgerView } from '../core/model.js';
import type { FIELD } from './fields.js';
import type { MoneyBook, MoneyBreach } from './money.js';
import type { FollowUp } from './observe.js';

/** The identifying fields of a payment, the only part of it kept in facts (never card data). */
export type PaymentFacts = Partial<
  Record<(typeof FIELD)['transactionId' | 'orderNo' | 'amount' | 'currency'], unknown>
>;

/** How far following the forms of a page went: the forms submitted, and why it stopped. */
export interface FormsCompletion {
  formsFollowed: number;
  stoppedAt: string;
}

/** The parts of the `signedValues` probe (`SIGNED_VALUE_PARTS`): the steps checks read. */
export type SignedValueStep = 'scalars' | 'nested';

/** A generated request: valid for the spec and the profile, or breaking exactly one rule (named by its requirement id). */
export type DeepCase =
  | { kind: 'valid'; fields: Record<string, unknown>; items?: { pool: number; fields: Record<string, unknown> }[] }
  | { kind: 'format' | 'type' | 'missing' | 'signature'; pointer: string; value?: unknown; rule: string };

/** A shrunk failure the probe kept: the check it fails, the minimal case, where fast-check found it, its exchange's step. */
export interface DeepFailure {
  checkId: string;
  case: DeepCase;
  seed: number;
  /** fast-check's replay path of the minimal case. */
  path: string;
  /** Step holding the minimal case's exchange (and `<step>:followUp` when it has one). */
  step: string;
  /** Cases of this operation failing the check before shrinking. */
  failing: number;
  /** The book of the first accepted item breaking a money rule, and the rule (suites/money.ts). */
  ledger?: MoneyBook & { breach: MoneyBreach };
}

/** What the deep probe counts per operation (in the summary finding). */
export interface DeepCounts {
  valid: number;
  accepted: number;
  declined: number;
  invalid: number;
  refused: number;
  followUps: number;
}

declare module '../core/model.js' {
  interface ObservationFacts {
    // ------------------------------------------------------------ any probe (suites/probes/support.ts)
    /** Set-up answers that lacked a field the probe needed, each with what the probe carried on from. */
    absentFields?: string[];

    // ------------------------------------------------------------ request recipes (suites/probes/basic.ts)
    /**
     * The payments the probe prepared and acted on: a batch's items, the records a selection selects (`happy`,
     * `selectionOrder`, `selectionCombined`, the deep generator's pools), in order.
     */
    records?: PaymentFacts[];
    /** What a refused request must leave unchanged, read by the `followUp` step. */
    followUp?: FollowUp;
    /** Why `wrongFormat` sent the valid request: no field of it has a format constraint to break. */
    noFormat?: string;
    /** The field `wrongFormat` put in a form its schema excludes: its JSON pointer and the value sent. */
    mutated?: { pointer: string; value: string };
    /** The free-text values `injection` sent, by field: the example's value with a markup-breaking string added. */
    injected?: Record<string, string>;
    /** The payments `declinedPayment` sent per decline rule of the profile: step name and the rule's trigger. */
    rules?: { step: string; trigger: string }[];
    /** The negative cases `generatedNegative` sent, in step order (`case01`, …): the field and what was done to it. */
    cases?: { field: string; kind: string }[];
    /** The seed the generated cases are reproducible from (`generatedNegative`, `deep`). */
    seed?: number;
    /** Why the main answer's signature was not verified (the kit's client cannot verify signatures). */
    signatureUnverifiable?: string;
    /** Whether the main answer's signature verifies (undefined: the profile has no rule for it). */
    signatureValid?: boolean | undefined;

    // ------------------------------------------------------------ profile choices (suites/probes/choices.ts)
    /** The parts `signedValues` sent: step, media type, and whether the profile's choice changes the string signed. */
    parts?: { step: SignedValueStep; encoding: string; choiceSigned: boolean }[];

    // ------------------------------------------------------------ deep (suites/probes/deep.ts)
    /** Generated valid and invalid requests per kind (`--depth`). */
    depth?: number;
    /** How many generated requests were sent and how they were answered. */
    counts?: DeepCounts;
    /** The shrunk failures kept, each with the step holding its exchange. */
    failures?: DeepFailure[];

    // ------------------------------------------------------------ notifications (suites/probes/events.ts)
    /** The order number (payout: request id) the notifications of the probe's payment are keyed by. */
    key?: string;
    /** Forms of the payment pages submitted to complete the payment. */
    formsFollowed?: number;
    /** Notifications received for the key. */
    notifications?: number;
    /** Each received notification's signature verdict, by exchange id (undefined: not verifiable). */
    signatures?: Record<string, boolean | undefined>;
    /** Requests the kit's receiver refused while the probe ran for passing its bounds. */
    receiverRefusals?: { tooLarge: number; overCount: number; overRate: number };
    /** Why a page payment was not completed (the kit cannot follow pages, the issuer URL cannot be followed). */
    cannotComplete?: string;
    /** Why notifications were not refused (the kit's receiver cannot refuse them). */
    cannotRefuse?: string;

    // ------------------------------------------------------------ integrity (suites/probes/integrity.ts)
    /** The run's ledger, read once every other observation is made (`LEDGER_FACT`). */
    ledger?: RunLedgerView;

    // ------------------------------------------------------------ lifecycle (suites/probes/lifecycle.ts)
    /** Why a scenario stopped before its last step (the steps after it were not made). */
    stoppedBecause?: string | undefined;
    /** The payment of the scenario (refund scenario, review, item faults). */
    record?: PaymentFacts;
    /** The payment of the cancel scenario. */
    record2?: PaymentFacts;
    /** The second payment of the review scenario, settled by the rejecting flag. */
    rejected?: PaymentFacts;
    /** The two partial refund amounts sent. */
    refunds?: string[];
    /** The refund amount one cent above what remains refundable. */
    overRefund?: string;
    /** The refund amount of the rest of the capture. */
    fullRefund?: string;
    /** Whether the profile holds no payment for review (`review.triggers: null`). */
    noHold?: boolean;
    /** The profile's first payout failure rule, which the `failing` payout matches. */
    failureRule?: { field: string; failureType: string; failureReason: string };
    /** Why no failing payout was sent (the profile has no failure rule). */
    noFailureRule?: string;
    /** The free-text field changed in the `replayChanged` payout. */
    changedField?: string;
    /** Why the payment was not queried after its completion (the profile's query does not select by order number). */
    cannotQuery?: string;
    /** The order number of the completed payment, as sent. */
    orderNo?: unknown;
    /** Why the payment pages were not followed. */
    cannotFollow?: string;
    /** How far the completion of the payment on its pages went. */
    completion?: FormsCompletion;
    /** The order number of the payment declined on its issuer page, as sent. */
    declinedOrderNo?: unknown;
    /** How far the decline on the issuer page went. */
    declineCompletion?: FormsCompletion;

    // ------------------------------------------------------------ limits (suites/probes/limits.ts)
    /** Items in the batch, or values in the selection, sent. */
    count?: number;
    /** The first prepared payment of the batch or selection. */
    first?: PaymentFacts;
    /** The last prepared payment of the batch or selection. */
    last?: PaymentFacts;
    /** The payment-status code the prepared payments of an over-limit batch must keep (undefined: none in the profile). */
    expectedCode?: string | undefined;
    /** The state the prepared payments of an over-limit batch start from (and must stay in). */
    state?: string;
    /** The selecting field of the selection. */
    field?: string;

    // ------------------------------------------------------------ profile rules (suites/probes/profile-rules.ts)
    /** The field `twoFaults` gave an invalid value besides the wrong signature. */
    invalidField?: string;
    /** The selection of `selectionCombined`: its selecting fields and the value matching nothing. */
    selection?: { first: string; second: string | undefined; unmatchedValue: string | undefined };

    // ------------------------------------------------------------ computed names
    /** What the refused request of a kept deep failure must leave unchanged (`<step>:followUp`). */
    [followUpOf: `${string}:followUp`]: FollowUp | undefined;
  }
}
