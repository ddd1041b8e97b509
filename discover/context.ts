/**
 * What discoverers share: the table row type, the facts one discoverer leaves for the next (observations that are
 * not profile values), and small helpers every discoverer uses.
 */
import type { Exchange, OperationKey } from '../core/model.js';
import type { ErrorKind, Profile } from '../core/profile/load.js';
import type { SignatureProfile } from '../core/signing.js';
import { answerOf, refusalOf, sameRefusal, type Refusal } from './answers.js';
import type { Session } from './session.js';
import type { SelectingOperation } from '../core/profile/operations.js';
import type { BatchOperationKey } from '../core/spec/terms.js';

/** One batch item's result: its item, status, message (`error_message` or `refund_message`) and the result. */
export interface ItemResult {
  item: Record<string, unknown>;
  status: string;
  /** `error_message` or `refund_message`. */
  message: string;
  result: Record<string, unknown>;
}

/** The names item failures get: by outcome (its code and message), and each name's code and messages. */
export interface FailureNames {
  /** The failure an outcome stands for; undefined when two failures share its code and its message tells neither. */
  nameOf(t: { code?: string; message?: string }): string | undefined;
  /** The code of each failure named. */
  codes: Map<string, string>;
  /** The messages of each failure named, where its code is shared (told apart by them). */
  messages: Map<string, string[]>;
}

/** A batch operation tried on a payment in a state: accepted or refused with its code and message. */
export interface ItemOutcome {
  op: BatchOperationKey;
  state?: keyof Profile['statusValues']['payment_status'];
  ok: boolean;
  code?: string;
  message?: string;
  evidence: string;
}

/** A payment discovery made, with what later requests refer to it by. */
export interface Payment {
  transaction_id: string;
  order_no: string;
  amount: string;
  currency: string;
  /** `order_status` as answered. */
  orderStatus: string;
  exchange: Exchange;
}

/** A refusal seen for an error kind, with its evidence. */
export type SeenRefusal = Refusal & { evidence: string; op: OperationKey; request: Record<string, unknown> };

/** Observations discoverers hand each other. */
export interface Facts {
  /** The refusal of a request whose body cannot be read. */
  malformed?: SeenRefusal;
  /** The refusal of a readable request with a wrong signature, per operation. */
  wrongSignature: Partial<Record<OperationKey, SeenRefusal>>;
  /** Refusals identified as an error kind. */
  kinds: Partial<Record<ErrorKind, SeenRefusal[]>>;
  /** The refusal of a request lacking the header the gateway requires (when one is required). */
  headerMissing?: SeenRefusal;
  /** Whether the gateway checks the fields before the signature (a request with both faults gets invalidInput). */
  inputFirst?: boolean;
  /** The payment whose answer approved, declined and held, once seen. */
  approved?: Payment;
  declined?: Payment;
  held?: Payment;
  /** E-mail domains of the format's list that hold a payment for review. */
  heldDomains?: string[];
  /** A stored-card token obtained, and the refusal of an unknown one. */
  tokenId?: string;
  unknownToken?: SeenRefusal;
  /** The refusal of a capture by an unknown merchant. */
  unknownMerchant?: SeenRefusal;
  /** The refusal of a second unknown merchant (another unknown merchant_id): whether its text is fixed. */
  unknownMerchantAgain?: SeenRefusal;
  /** `payment_status` code of each state reached. */
  stateCodes?: Partial<Record<string, string>>;
  /** The state a refund in full (`toFull`) and in part (`toPartial`) left a payment in, where a query told it. */
  refundTo?: Partial<Record<'toFull' | 'toPartial', string>>;
  /** Batch items tried (lifecycle and item-failure rows). */
  itemOutcomes?: ItemOutcome[];
  /** Codes of the item failures a dedicated probe named (`invalidItem`, `overRefund`, …). */
  failureCodes?: Record<string, string>;
  /** Messages seen per item failure code. */
  failureMessages?: Record<string, string[]>;
  /** Messages of each failure a dedicated probe named, from its own items. */
  failureWording?: Record<string, string[]>;
  /** The names item failures get (lifecycle row): by code and message, with each name's code. */
  failureNames?: FailureNames;
  /** Results of the set-up refunds (full, then partial). */
  refundResults?: ItemResult[];
  /** Code of a review item whose flag neither approves nor rejects. */
  invalidFlagCode?: string;
  /** The refusal of a selection matching nothing (`unknownRecordIfNone`). */
  unmatchedRefusal?: SeenRefusal;
  /** Payment notification bodies the schedule row receives, each with the answer that produced it (once it is done). */
  schedule?: Promise<{ body: Record<string, unknown>; response: Record<string, unknown> }[]>;
  /** Notifications received (their signature is judged with the response scheme). */
  notifications?: Exchange[];
  /** The same, by kind. */
  notificationsOf?: { payment: Exchange[]; payout: Exchange[] };
  /** Fields found to select records, per selection operation (their order aside). */
  selecting?: Partial<Record<SelectingOperation, string[]>>;
  /** Security code of the approving test card. */
  securityCode: string;
  /** Payment methods the target offers (the config's, or the spec example's). */
  paymentMethods: string[];
  /** Payouts that failed with a trigger of the format's list, with the rule each tells. */
  payoutFailures?: PayoutFailure[];
}

/** A payout failed by a trigger of the format's list (`payout.failureRules`). */
export interface PayoutFailure {
  rule: { field: string; match: 'equals' | 'prefix'; value: string; failureType: string; failureReason: string };
  /** `status` of the failed payout's answer. */
  status: string;
  evidence: string;
  /** The body sent (a notification probe sends it again with its notify_url). */
  request: Record<string, unknown>;
}

/** One row of the discoverer table: the profile points it decides, the rows it reads, and its probes. */
export interface Discoverer {
  id: string;
  /** Dotted profile paths (or subtrees) this row decides or marks UNKNOWN. */
  decides: readonly string[];
  /** Rows that must have run first. */
  after: readonly string[];
  run(s: Session, facts: Facts): Promise<void>;
}

/** The signature section used to sign one request with a candidate scheme. */
export function candidateSignature(
  algorithm: SignatureProfile['algorithm'],
  encoding: SignatureProfile['encoding'],
  request: SignatureProfile['request'],
): SignatureProfile {
  return { algorithm, encoding, request, response: { signed: false }, caseInsensitiveCompare: false };
}

/** A well-formed signature no gateway computes (64 zeros in hex, or its base64 form). */
export function wrongSignature(encoding: SignatureProfile['encoding']): string {
  return encoding === 'base64' ? Buffer.alloc(32).toString('base64') : '0'.repeat(64);
}

/** Send and read the refusal (undefined: the operation did its work), with the exchange. */
export async function attempt(
  s: Session,
  op: OperationKey,
  body: Record<string, unknown>,
  options: Parameters<Session['send']>[2] = {},
): Promise<{ x: Exchange; refusal: Refusal | undefined }> {
  let x = await s.send(op, body, options);
  // A target asking to slow down is asked again a second later; a request left unanswered (a connection reset under
  // load), once more at once.
  for (let retry = 0; retry < 2; retry++) {
    const slow = x.response && (x.response.status === 429 || x.response.status === 503);
    if (!slow && (x.response || retry > 0)) break;
    await new Promise((r) => setTimeout(r, slow ? 1000 : 100));
    x = await s.send(op, body, options);
  }
  return { x, refusal: refusalOf(s.spec, s.work, op, x) };
}

/** A refusal kept with its evidence. */
export function seen(
  s: Session,
  op: OperationKey,
  x: Exchange,
  refusal: Refusal,
  request: Record<string, unknown>,
): SeenRefusal {
  return { ...refusal, evidence: s.evidence(x), op, request };
}

/** Record a refusal as an error kind (a request left without an answer is none). */
export function noteKind(facts: Facts, kind: ErrorKind, r: SeenRefusal): void {
  if (r.lost) return;
  (facts.kinds[kind] ??= []).push(r);
}

/** Whether a refusal is the one a wrong signature gets on that operation. */
export function isWrongSignature(facts: Facts, op: OperationKey, r: Refusal | undefined): boolean {
  const known = facts.wrongSignature[op];
  return !!known && sameRefusal(known, r);
}

/** The answer's body, or an empty object. */
export function bodyOf(x: Exchange): Record<string, unknown> {
  return answerOf(x)?.body ?? {};
}

/** Text of a field of a body ('' when absent or not a scalar). */
export function textAt(body: Record<string, unknown> | undefined, field: string): string {
  const v = body?.[field];
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
