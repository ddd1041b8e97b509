/**
 * Named deviations from the interface (`--fault NAME`), so reporters and the kit's self-test can run against a
 * broken target. A fault is data plus at most three small hooks:
 * - `switches`: behaviour switches the operations consult (e.g. skip the signature check);
 * - `reply`: rewrites a structured reply before it is serialised (e.g. rename the XML root);
 * - `wire`: rewrites the serialised response (status, headers, body text).
 * Adding a fault means adding one entry to `FAULTS`; operations only read `BehaviourSwitches`.
 */
import type { Family, OperationKey } from '../src/model.js';
import type { OperationModel } from '../src/spec/load.js';
import type { ErrorKind } from './context.js';
import type { Reply, WireResponse } from './reply.js';

/** Behaviour switches the operations consult; all off without a fault. */
export interface BehaviourSwitches {
  /** Accept any `encryption_data` (and none). */
  skipSignatureCheck: boolean;
  /** Serve the profile's address-restricted operations to any source address. */
  skipAddressRestriction: boolean;
  /** Let refunds add up to more than the captured amount. */
  skipRefundBound: boolean;
  /** Never send notifications. */
  suppressNotifications: boolean;
}

/** What a reply hook knows about the reply it rewrites. */
export interface ReplyContext {
  /** The operation answered, when the path names one. */
  op?: OperationModel;
  /** Set when the reply is an error reply. */
  errorKind?: ErrorKind;
}

/** One named fault. */
export interface FaultDefinition {
  /** kebab-case name used with `--fault`. */
  name: string;
  description: string;
  /** Requirement id (spec/requirements.yaml) the fault breaks. */
  requirement: string;
  /** camelCase id of the conformance check expected to catch it. */
  expectedCheck: string;
  family: Family;
  switches?: Partial<BehaviourSwitches>;
  reply?: (reply: Reply, ctx: ReplyContext) => Reply;
  wire?: (wire: WireResponse, ctx: ReplyContext) => WireResponse;
}

const isSuccess = (ctx: ReplyContext, ...ops: OperationKey[]) => !ctx.errorKind && ctx.op !== undefined && (ops.length === 0 || ops.includes(ctx.op.key));

/** Rewrite every result item of a successful batch reply. */
function mapBatchItems(reply: Reply, ctx: ReplyContext, fn: (item: Record<string, unknown>) => Record<string, unknown>): Reply {
  const orders = ctx.op?.batch?.orders;
  if (!orders || ctx.errorKind || reply.kind !== 'json' || !Array.isArray(reply.body[orders])) return reply;
  return { ...reply, body: { ...reply.body, [orders]: (reply.body[orders] as Record<string, unknown>[]).map(fn) } };
}

/** The fault registry. */
export const FAULTS: readonly FaultDefinition[] = [
  {
    name: 'xml-root-wrong',
    description: 'XML payment responses use the root element <response> instead of <respon>.',
    requirement: 'PAGI-MED-006',
    expectedCheck: 'xmlRootIsRespon',
    family: 'media',
    reply: (reply) => (reply.kind === 'xml' && reply.root === 'respon' ? { ...reply, root: 'response' } : reply),
  },
  {
    name: 'checkout-method-get',
    description: 'The hosted checkout page submits its form with method GET instead of POST.',
    requirement: 'PAGI-CHK-002',
    expectedCheck: 'checkoutFormMethodIsPost',
    family: 'shape',
    reply: (reply, ctx) =>
      reply.kind === 'html' && reply.page.autoSubmit && reply.page.form && isSuccess(ctx, 'checkout')
        ? { ...reply, page: { ...reply.page, form: { ...reply.page.form, method: 'GET' } } }
        : reply,
  },
  {
    name: 'batch-drops-order-no',
    description: 'Capture, review, cancel and refund results leave out the order_no of their request item.',
    requirement: 'PAGI-BAT-002',
    expectedCheck: 'batchResultsEchoRequestIds',
    family: 'shape',
    reply: (reply, ctx) => mapBatchItems(reply, ctx, ({ order_no: _dropped, ...rest }) => rest),
  },
  {
    name: 'batch-amount-as-number',
    description: 'Batch results carry amount as a JSON number instead of a two-decimal string.',
    requirement: 'PAGI-FMT-001',
    expectedCheck: 'amountsAreTwoDecimalStrings',
    family: 'conventions',
    reply: (reply, ctx) => mapBatchItems(reply, ctx, (item) => (typeof item.amount === 'string' ? { ...item, amount: Number(item.amount) } : item)),
  },
  {
    name: 'signature-not-verified',
    description: 'Requests are accepted whatever their encryption_data, even without one.',
    requirement: 'PAGI-AUTH-006',
    expectedCheck: 'badSignatureRefused',
    family: 'security',
    switches: { skipSignatureCheck: true },
  },
  {
    name: 'query-from-any-address',
    description: 'The query answers requests from source addresses the merchant never registered.',
    requirement: 'PAGI-AUTH-008',
    expectedCheck: 'unregisteredAddressRefused',
    family: 'security',
    switches: { skipAddressRestriction: true },
  },
  {
    name: 'refund-exceeds-capture',
    description: 'Refunds are accepted beyond the captured amount.',
    requirement: 'PAGI-REF-003',
    expectedCheck: 'refundsNeverExceedCapture',
    family: 'lifecycle',
    switches: { skipRefundBound: true },
  },
  {
    name: 'notification-never-sent',
    description: 'No payment or payout result is ever sent to notify_url.',
    requirement: 'PAGI-EVT-001',
    expectedCheck: 'notificationDelivered',
    family: 'events',
    switches: { suppressNotifications: true },
  },
  {
    name: 'malformed-body-500',
    description: 'A malformed request body is answered with HTTP 500 instead of a 4xx.',
    requirement: 'PAGI-ERR-002',
    expectedCheck: 'malformedInputNot5xx',
    family: 'status',
    reply: (reply, ctx) => (ctx.errorKind === 'malformedBody' ? { ...reply, status: 500 } : reply),
  },
  {
    name: 'json-content-type-text',
    description: 'JSON responses declare Content-Type text/plain.',
    requirement: 'PAGI-MED-009',
    expectedCheck: 'responseContentTypeConventional',
    family: 'media',
    wire: (wire) =>
      wire.headers['content-type']?.startsWith('application/json') ? { ...wire, headers: { ...wire.headers, 'content-type': 'text/plain; charset=utf-8' } } : wire,
  },
];

/** A fault name the registry does not hold. */
export class UnknownFaultError extends Error {}

/** The fault of that name; throws UnknownFaultError naming the known ones. */
export function findFault(name: string): FaultDefinition {
  const fault = FAULTS.find((f) => f.name === name);
  if (!fault) throw new UnknownFaultError(`unknown fault '${name}'; known faults: ${FAULTS.map((f) => f.name).join(', ')}`);
  return fault;
}

/** The behaviour switches of a fault (all off without one). */
export function switchesOf(fault: FaultDefinition | undefined): BehaviourSwitches {
  return { skipSignatureCheck: false, skipAddressRestriction: false, skipRefundBound: false, suppressNotifications: false, ...fault?.switches };
}
