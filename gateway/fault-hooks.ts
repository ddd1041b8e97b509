/**
 * The vocabulary of the reference gateway's variants (gateway/faults.ts, gateway/faults-integrity.ts): what a fault
 * is (a deviation with the requirement it breaks and the check that should catch it, or a neutral change), the
 * behaviour switches the operations consult, and the small hooks a variant rewrites replies with.
 */
import type { OperationKey } from '../core/model.js';
import { sign, verify } from '../core/signing.js';
import type { ErrorKind, Profile } from '../core/profile/load.js';
import type { OperationModel, SpecModel } from '../core/spec/load.js';
import { covers, type OperationScope } from '../core/spec/operations.js';
import type { HtmlForm, HtmlInput, HtmlPage } from './html.js';
import type { Reply, WireResponse } from './reply.js';

/** How the gateway treats `encryption_data` of requests. */
export type SignatureCheck = 'verified' | 'ignored' | 'ignoredWhenMissing' | 'afterOperation';

/** Behaviour switches the operations consult; all off without a fault. */
export interface BehaviourSwitches {
  /** `verified` (conformant); `ignored`: any or none accepted; `ignoredWhenMissing`: a request without one accepted; `afterOperation`: checked only once the operation has run. */
  signatureCheck: SignatureCheck;
  /** Serve the profile's address-restricted operations to any source address. */
  skipAddressRestriction: boolean;
  /** Let refunds add up to more than the captured amount. */
  skipRefundBound: boolean;
  /** Let a capture take more than the authorised amount. */
  skipCaptureBound: boolean;
  /** Let a cancelled payment be captured. */
  captureCancelled: boolean;
  /** Never send notifications. */
  suppressNotifications: boolean;
  /** Send notifications without `encryption_data`. */
  unsignedNotifications: boolean;
  /** Answer the full card number in `card`. */
  unmaskedCard: boolean;
  /** Accept requests whatever their schema violations (batch items are still checked one by one). */
  skipSchemaValidation: boolean;
  /** Operations served at their path without the `/v1` prefix. */
  unversionedPaths: OperationScope;
  /** Added to each batch operation's order limit (the spec's `maxItems`). */
  batchLimitDelta: number;
  /** Added to the query's and refund search's order limit (the spec's `x-pagi-limit`). */
  selectionLimitDelta: number;
  /** Process the first orders of an over-limit request and answer success, whatever the profile says. */
  truncateOverLimit: boolean;
  /** A request field the signature check reads from elsewhere (a fixed value) instead of the request, when the request's value matches `pattern`. */
  signatureFieldFixed?: { operation: OperationKey; field: string; value: string; pattern: string };
}

/** What a reply hook knows about the reply it rewrites. */
export interface ReplyContext {
  /** The spec the gateway serves (an operation scope is read against it). */
  spec: SpecModel;
  /** The operation answered, when the path names one. */
  op?: OperationModel;
  /** Set when the reply is an error reply. */
  errorKind?: ErrorKind;
  /** The gateway's profile (status values, codes). */
  profile: Profile;
  /** The secrets of the gateway's configuration (for a fault that leaks one). */
  secrets?: readonly string[];
  /** The request body as the gateway read it (for a fault echoing what was sent). */
  request?: Readonly<Record<string, unknown>>;
}

export type ReplyHook = (reply: Reply, ctx: ReplyContext) => Reply;
/** A notification as the gateway is about to send it: its kind, the address and the fields it is made from. */
export interface OutgoingNotification {
  kind: 'payment' | 'payout';
  url: string;
  body: Record<string, unknown>;
}
/** Rewrites a notification before it is encoded and signed. */
export type NotificationHook = (n: OutgoingNotification) => OutgoingNotification;
export type WireHook = (wire: WireResponse, ctx: ReplyContext) => WireResponse;
/** An extra invalid-input refusal: its reason, or undefined when the request passes. */
export type RefuseHook = (
  op: OperationKey,
  body: Record<string, unknown>,
  encoding: 'json' | 'form',
  model: OperationModel,
) => string | undefined;

export interface VariantBase {
  /** kebab-case name used with `--fault`. */
  name: string;
  description: string;
  switches?: Partial<BehaviourSwitches>;
  refuse?: RefuseHook;
  reply?: ReplyHook;
  wire?: WireHook;
  notification?: NotificationHook;
}

/** One deviation from the interface. */
export interface DeviationDefinition extends VariantBase {
  kind: 'fault';
  /** Requirement id (spec/requirements.yaml) the fault breaks. */
  requirement: string;
  /** Id of the conformance check (suites/registry.ts) expected to catch it; the self-test runs the fault through that check's family. */
  expectedCheck: string;
  /** A fault only generated requests reach: the one operation the self-test runs its deep check on (at depth 1000). */
  deepOperation?: OperationKey;
}

/** A change the document allows: a conformant gateway may do it, and the kit must not fail it. */
export interface NeutralDefinition extends VariantBase {
  kind: 'neutral';
}

/** One named variant of the registry. */
export type FaultDefinition = DeviationDefinition | NeutralDefinition;

export type Body = Record<string, unknown>;

/** Whether the reply answers an operation of `ops` (a set or requirement of the served spec, or a list) with success. */
export function succeeded(ctx: ReplyContext, ops: OperationScope): boolean {
  return !ctx.errorKind && ctx.op !== undefined && covers(ctx.spec, ops, ctx.op.key);
}

/** Rewrite the JSON or XML body of a successful reply of `ops`. */
export function body(ops: OperationScope, fn: (body: Body, ctx: ReplyContext) => Body): ReplyHook {
  return (reply, ctx) =>
    reply.kind !== 'html' && succeeded(ctx, ops) ? { ...reply, body: fn(reply.body, ctx) } : reply;
}

/** The result array of a successful batch, query or refund search reply, and its field name. */
export function listOf(
  reply: Reply,
  ctx: ReplyContext,
  ops: OperationScope,
): { field: string; list: Body[] } | undefined {
  if (reply.kind !== 'json' || !succeeded(ctx, ops)) return undefined;
  const field =
    ctx.op?.batch?.orders ??
    (ctx.op?.selectionLimit ? Object.keys(reply.body).find((k) => Array.isArray(reply.body[k])) : undefined);
  const list = field === undefined ? undefined : reply.body[field];
  return field !== undefined && Array.isArray(list) ? { field, list: list as Body[] } : undefined;
}

/** Rewrite the result array of a successful batch, query or refund search reply. */
export function list(ops: OperationScope, fn: (list: Body[], ctx: ReplyContext) => Body[]): ReplyHook {
  return (reply, ctx) => {
    const found = listOf(reply, ctx, ops);
    return found && reply.kind === 'json'
      ? { ...reply, body: { ...reply.body, [found.field]: fn(found.list, ctx) } }
      : reply;
  };
}

/** Rewrite every item of the result array of a successful batch, query or refund search reply. */
export function items(ops: OperationScope, fn: (item: Body, ctx: ReplyContext) => Body): ReplyHook {
  return list(ops, (all, ctx) => all.map((item) => fn(item, ctx)));
}

/** Rewrite the successful, auto-submitting checkout page (not the hosted payment page that follows it). */
export function checkoutPage(fn: (page: HtmlPage & { form: HtmlForm }, ctx: ReplyContext) => HtmlPage): ReplyHook {
  return (reply, ctx) =>
    reply.kind === 'html' && reply.page.autoSubmit && reply.page.form && succeeded(ctx, ['checkout'])
      ? { ...reply, page: fn({ ...reply.page, form: reply.page.form }, ctx) }
      : reply;
}

/** Rewrite the form of a successful checkout page. */
export function checkoutForm(fn: (form: HtmlForm, ctx: ReplyContext) => HtmlForm): ReplyHook {
  return checkoutPage((page, ctx) => ({ ...page, form: fn(page.form, ctx) }));
}

/** Rewrite the inputs of a successful checkout page. */
export function checkoutInputs(fn: (inputs: HtmlInput[], ctx: ReplyContext) => HtmlInput[]): ReplyHook {
  return checkoutForm((form, ctx) => ({ ...form, inputs: fn(form.inputs, ctx) }));
}

/** Rewrite the text of responses whose content type starts with `type`. */
export function text(type: string, fn: (text: string, ctx: ReplyContext) => string): WireHook {
  return (wire, ctx) => (wire.headers['content-type']?.startsWith(type) ? { ...wire, body: fn(wire.body, ctx) } : wire);
}

/** Replace the content type of responses whose content type starts with `type`. */
export function contentType(type: string, replacement: string): WireHook {
  return (wire) =>
    wire.headers['content-type']?.startsWith(type)
      ? { ...wire, headers: { ...wire.headers, 'content-type': replacement } }
      : wire;
}

/**
 * A response body signed again after a fault changed it, with the secret that signed the original (so the fault
 * breaks what it changes, not the signature).
 */
export function resigned(op: OperationKey, original: Body, changed: Body, ctx: ReplyContext): Body {
  const secret = (ctx.secrets ?? []).find((s) => verify(ctx.profile.signature, 'response', op, original, s));
  const signature = secret === undefined ? undefined : sign(ctx.profile.signature, 'response', op, changed, secret);
  return signature === undefined ? changed : { ...changed, encryption_data: signature };
}

/** Drop fields of an object. */
export function without(obj: Body, ...fields: string[]): Body {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !fields.includes(k)));
}

/** The batch status field's success value of the answered operation. */
export function itemSuccess(ctx: ReplyContext): string | undefined {
  const status = ctx.op?.batch?.status;
  return status
    ? (ctx.profile.statusValues as unknown as Record<string, { success?: string }>)[status]?.success
    : undefined;
}

/** A deep copy of a JSON value with every object's keys in reverse order. */
export function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    );
  return value;
}
