/**
 * One request, from path to reply: route, size cap, body reading, variant selection, then the profile's checks in
 * its `errors.precedence` order (the first failing check decides the error), then the operation.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { OperationKey } from '../core/model.js';
import type { OperationModel } from '../core/spec/load.js';
import { covers } from '../core/spec/operations.js';
import type { SchemaViolation } from '../core/spec/ajv.js';
import { decodeForm, sniffBody } from '../core/codecs/form.js';
import { verify } from '../core/signing.js';
import { isRegistered, resolveAccount, type ResolvedAccount } from './config.js';
import { batchLimit, fieldLengthOf, refusesOverLimit } from './context.js';
import type { ErrorKind, Gateway, GatewayRequest, OperationFacts, OperationHandler, Refusal } from './context.js';
import { errorReply } from './errors.js';
import { bodyProblem, loneSurrogateProblem, longFieldProblem } from './limits.js';
import type { Reply } from './reply.js';
import { apmPayment, issuerPage, ISSUER_PATH } from './ops/apm.js';
import { batchOperations } from './ops/batch.js';
import { checkoutPayment, isPostBack, PAY_PATH, payPage, postBackPage, postBackSession } from './ops/checkout.js';
import { directPayment } from './ops/direct.js';
import { payout } from './ops/payout.js';
import { selectionOperations } from './ops/selection.js';
import { mockOperation } from './ops/mock.js';
import { precedenceOf } from '../core/profile/choices.js';
import { renderHeaderValue } from '../core/profile/template.js';

/** The operations of the interface the gateway keeps state for; any other operation of the spec is mocked. */
const HANDLERS: Partial<Record<OperationKey, OperationHandler>> = {
  authoriseDirect: directPayment,
  authoriseApm: apmPayment,
  checkout: checkoutPayment,
  ...batchOperations,
  ...selectionOperations,
  payout,
};

/** The handler of an operation: its own, or the schema-driven mock (an operation added to the spec). */
function handlerOf(op: OperationKey): OperationHandler {
  return HANDLERS[op] ?? mockOperation;
}

/** A request as read from the socket. */
export interface Incoming {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  remoteAddress: string;
  /** Body text (empty when over the size cap, unless the profile reads an oversized body: `readsOversizedBody`). */
  body: string;
  tooLarge: boolean;
}

/** The reply to a request and what the log and the fault hooks need to know about it. */
export interface Handled {
  reply: Reply;
  op?: OperationModel;
  errorKind?: ErrorKind;
  reason?: string;
  body?: Record<string, unknown>;
}

/** A path's operation variants, with the nested and numeric request fields of all of them (for form bodies). */
interface Route {
  variants: OperationFacts[];
  nested: Set<string>;
  numeric: Map<string, 'integer' | 'number'>;
}

/** Routing table (path → route) and the checks in the profile's order: per operation, and for no operation. */
export interface Routes {
  byPath: Map<string, Route>;
  checks: ReturnType<typeof orderedChecks>;
  checksByOperation: Map<OperationKey, ReturnType<typeof orderedChecks>>;
}

/** Build the routing table from the spec's operations. */
export function buildRoutes(gw: Gateway): Routes {
  const byPath: Routes['byPath'] = new Map();
  for (const facts of gw.facts.values()) {
    // A fault may serve an operation without the /v1 of its path.
    const path = covers(gw.spec, gw.switches.unversionedPaths, facts.model.key)
      ? facts.model.path.replace(/^\/v1(?=\/)/, '')
      : facts.model.path;
    const route: Route = byPath.get(path) ?? { variants: [], nested: new Set<string>(), numeric: new Map() };
    route.variants.push(facts);
    for (const f of facts.nested) route.nested.add(f);
    for (const [f, t] of facts.numeric) route.numeric.set(f, t);
    byPath.set(path, route);
  }
  const checksByOperation = new Map([...gw.facts.keys()].map((op) => [op, orderedChecks(gw.profile, op)]));
  return { byPath, checks: orderedChecks(gw.profile), checksByOperation };
}

/**
 * A parsed body; `text`: a form body's fields as the text sent, kept where the profile's gateway does not decode
 * nested values (`requestMedia.formNestedValues: text`): it signs them, and echoes them, as that text.
 */
type Parsed = { body: Record<string, unknown>; encoding: 'json' | 'form'; text?: Record<string, string> };

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const NUMBER_TEXT = { integer: /^-?(0|[1-9][0-9]*)$/, number: /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/ };

/** Form fields are text: a field the schema types as a number or integer is read from its decimal text. */
function formNumbers(
  body: Record<string, unknown>,
  numeric: ReadonlyMap<string, 'integer' | 'number'>,
): Record<string, unknown> {
  for (const [field, type] of numeric) {
    const v = body[field];
    if (typeof v === 'string' && NUMBER_TEXT[type].test(v)) body[field] = Number(v);
  }
  return body;
}

/** Read a body as the profile's `requestMedia` says; undefined when it cannot be read. */
function parseBody(gw: Gateway, incoming: Incoming, op: OperationKey, route: Route): Parsed | undefined {
  const { nested } = route;
  const media = gw.profile.requestMedia;
  let encoding: Parsed['encoding'] | undefined;
  let body: Record<string, unknown> | undefined;
  if (media.detection === 'sniffed') {
    const sniffed = sniffBody(incoming.body);
    encoding = sniffed?.encoding;
    body = sniffed?.encoding === 'form' ? decodeForm(incoming.body, nested) : sniffed?.value;
  } else {
    const type = String(incoming.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (type === 'application/json') [encoding, body] = ['json', jsonObject(incoming.body)];
    else if (type === 'application/x-www-form-urlencoded' && /^[^=&]*=/.test(incoming.body.trimStart()))
      [encoding, body] = ['form', decodeForm(incoming.body, nested)];
  }
  if (!encoding || !body) return undefined;
  // A checkout page's form comes back as a browser posts it (form-urlencoded), whatever the operation's own media type.
  const postBack = encoding === 'form' && route.variants.some((v) => v.model.checkoutForm) && isPostBack(body);
  if (!media.acceptOther && encoding !== media.types[op] && !postBack) return undefined;
  // A form field named __proto__ holding JSON text replaces the decoded object's prototype: refuse such a body.
  if (Object.getPrototypeOf(body) !== Object.prototype) return undefined;
  if (encoding !== 'form') return { body, encoding };
  const parsed: Parsed = { body: formNumbers(body, route.numeric), encoding };
  if (media.formNestedValues === 'text') parsed.text = decodeForm(incoming.body, new Set()) as Record<string, string>;
  return parsed;
}

/** The variant of a path a body selects (`when.present` / `when.absent` of the spec). */
function variantOf(variants: OperationFacts[], body: Record<string, unknown> | undefined): OperationFacts {
  if (body) {
    const hit = variants.find(
      ({ model: { when } }) =>
        (!when?.present || body[when.present] !== undefined) && (!when?.absent || body[when.absent] === undefined),
    );
    if (hit) return hit;
  }
  return variants[0]!;
}

/** Where a schema violation belongs: the batch limit, one batch item (answered per item), or the request. */
function violationScope(op: OperationModel, v: SchemaViolation): 'limit' | 'item' | 'request' {
  const orders = op.batch ? `/${op.batch.orders}` : undefined;
  if (!orders) return 'request';
  if (v.instancePath === orders && v.keyword === 'maxItems') return 'limit';
  return v.instancePath.startsWith(`${orders}/`) ? 'item' : 'request';
}

/** Whether a batch request holds more orders than its limit (the schema's `maxItems`, unless a fault moved it). */
function overBatchLimit(s: RequestState): boolean {
  const orders = s.facts!.model.batch?.orders;
  const list = orders === undefined ? undefined : s.body![orders];
  return Array.isArray(list) && list.length > batchLimit(s.gw, s.facts!.model);
}

/** A fault ignoring missing signatures also lets through the schema's `required` of `encryption_data`. */
function unsignedLetThrough(s: RequestState, v: SchemaViolation): boolean {
  return (
    s.gw.switches.signatureCheck.startsWith('ignored') &&
    v.keyword === 'required' &&
    v.params.missingProperty === 'encryption_data'
  );
}

/** Why a request's `encryption_data` is refused (none, or not matching), as the active fault's switch lets it be. */
function signatureProblem(s: RequestState): string | undefined {
  const mode = s.gw.switches.signatureCheck;
  if (mode === 'ignored' || (mode === 'ignoredWhenMissing' && s.body!.encryption_data === undefined)) return undefined;
  const fixed = s.gw.switches.signatureFieldFixed;
  const signed =
    fixed?.operation === s.facts!.model.key && new RegExp(fixed.pattern).test(String(s.body![fixed.field]))
      ? { ...s.body!, [fixed.field]: fixed.value }
      : s.body!;
  // Signed as read: a form body kept as text is signed as the text sent (requestMedia.formNestedValues).
  const read = s.parsed?.text && signed === s.body ? s.parsed.text : signed;
  return verify(s.gw.profile.signature, 'request', s.facts!.model.key, read, s.account!.secret)
    ? undefined
    : 'encryption_data missing or wrong';
}

function headerProblem(gw: Gateway, incoming: Incoming, body: Record<string, unknown>): string | undefined {
  for (const [name, template] of Object.entries(gw.profile.requestHeaders.headers)) {
    const expected = renderHeaderValue(String(template), body);
    if (incoming.headers[name.toLowerCase()] !== expected) return `header ${name} missing or not as expected`;
  }
  return undefined;
}

/** The gateway's own pages (issuer page, hosted payment page); undefined for any other path. */
function handlePage(gw: Gateway, incoming: Incoming): Handled | undefined {
  const page = incoming.path.startsWith(ISSUER_PATH)
    ? { op: 'authoriseApm' as const, token: incoming.path.slice(ISSUER_PATH.length), show: issuerPage }
    : incoming.path.startsWith(PAY_PATH)
      ? { op: 'checkout' as const, token: incoming.path.slice(PAY_PATH.length), show: payPage }
      : undefined;
  if (!page) return undefined;
  const op = gw.facts.get(page.op)?.model;
  const fail = (kind: ErrorKind, reason: string): Handled => ({
    reply: errorReply(gw, kind, page.op, {}, undefined, 'html'),
    op,
    errorKind: kind,
    reason,
  });
  if (incoming.method !== 'GET' && incoming.method !== 'POST') {
    const refused = fail('methodNotAllowed', `method ${incoming.method}`);
    return { ...refused, reply: { ...refused.reply, headers: { allow: 'GET, POST' } } };
  }
  if (incoming.tooLarge) return fail('bodyTooLarge', 'body over the size cap');
  const overCap = incoming.method === 'POST' ? bodyProblem(incoming.body, gw.config.limits) : undefined;
  if (overCap) return fail('invalidInput', overCap);
  const sniffed = incoming.method === 'POST' ? sniffBody(incoming.body) : undefined;
  const form = sniffed?.value ?? {};
  const lone = sniffed && loneSurrogateProblem(incoming.body, sniffed.value, sniffed.encoding);
  if (lone) return fail('invalidInput', lone);
  const long = sniffed && longFieldProblem(incoming.body, sniffed.value, fieldLengthOf(gw));
  if (long) return fail('invalidInput', long);
  const reply = page.show(gw, page.token, form);
  // A page's own refusal (unknown session, unusable card): its error kind is the profile's kind of that status.
  const kind =
    reply.status >= 400
      ? (Object.entries(gw.profile.errors.kinds).find(([, k]) => k.status === reply.status)?.[0] as
          | ErrorKind
          | undefined)
      : undefined;
  return {
    reply,
    op,
    body: form,
    errorKind: kind,
    reason:
      kind &&
      (reply.headers?.['x-pagi-reason'] ??
        `${kind} on the ${page.op === 'checkout' ? 'hosted payment' : 'issuer'} page`),
  };
}

/** One request's facts, each worked out once and only when a check or the operation needs it. */
class RequestState {
  private parsedDone = false;
  private parsedValue: Parsed | undefined;
  /** Why the body was not parsed although it is under the size cap: over a cap of `limits`. */
  private overCapValue: string | undefined;
  private accountDone = false;
  private accountValue: ResolvedAccount | undefined;
  private violationsValue: { v: SchemaViolation; scope: 'limit' | 'item' | 'request' }[] | undefined;
  private refusalsValue: Refusal[] | undefined;
  private requestValue: GatewayRequest | undefined;
  private factsValue: OperationFacts | undefined;

  constructor(
    readonly gw: Gateway,
    readonly incoming: Incoming,
    readonly route: Route | undefined,
  ) {}

  get parsed(): Parsed | undefined {
    if (!this.parsedDone) {
      this.parsedDone = true;
      if (this.route && !(this.incoming.tooLarge && !this.incoming.body)) {
        this.overCapValue = bodyProblem(this.incoming.body, this.gw.config.limits, this.declaredEncoding());
        if (!this.overCapValue)
          this.parsedValue = parseBody(this.gw, this.incoming, this.route.variants[0]!.model.key, this.route);
      }
    }
    return this.parsedValue;
  }

  /** The encoding the body is read in when the profile goes by the Content-Type (undefined: sniffed). */
  private declaredEncoding(): 'json' | 'form' | undefined {
    if (this.gw.profile.requestMedia.detection === 'sniffed') return undefined;
    const type = String(this.incoming.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    return type === 'application/json' ? 'json' : 'form';
  }

  /** A body under the size cap but over a cap of `limits` (never parsed). */
  get overCap(): string | undefined {
    void this.parsed;
    return this.overCapValue;
  }

  /** A parsed body holding a lone UTF-16 surrogate (a JSON escape of half a pair): not Unicode text. */
  get loneSurrogate(): string | undefined {
    const p = this.parsed;
    return p ? loneSurrogateProblem(this.incoming.body, p.body, p.encoding) : undefined;
  }

  /** A parsed body with a field longer than the longest the gateway accepts (the profile's `limits.maxFieldLength`). */
  get longField(): string | undefined {
    const p = this.parsed;
    return p ? longFieldProblem(this.incoming.body, p.body, fieldLengthOf(this.gw)) : undefined;
  }

  get body(): Record<string, unknown> | undefined {
    return this.parsed?.body;
  }

  /** The operation variant (the path's first one until the body selects another). */
  get facts(): OperationFacts | undefined {
    if (!this.route) return undefined;
    this.factsValue ??= variantOf(this.route.variants, this.body);
    return this.factsValue;
  }

  get account(): ResolvedAccount | undefined {
    if (!this.accountDone) {
      this.accountDone = true;
      const b = this.body;
      this.accountValue = b ? resolveAccount(this.gw.config, b.merchant_id, b.account_id) : undefined;
    }
    return this.accountValue;
  }

  get postBack(): boolean {
    return this.facts?.model.checkoutForm !== undefined && this.body !== undefined && isPostBack(this.body);
  }

  /** A readable body of an operation request (not a posted-back checkout form). */
  get ready(): boolean {
    return this.body !== undefined && !this.postBack;
  }

  get violations() {
    this.violationsValue ??= this.gw.spec
      .validate(this.facts!.model.requestSchemaId, this.body)
      .map((v) => ({ v, scope: violationScope(this.facts!.model, v) }));
    return this.violationsValue;
  }

  get request(): GatewayRequest {
    this.requestValue ??= {
      op: this.facts!,
      body: this.body!,
      encoding: this.parsed!.encoding,
      formText: this.parsed!.text,
      account: this.account!,
      remoteAddress: this.incoming.remoteAddress,
      headers: this.incoming.headers,
    };
    return this.requestValue;
  }

  get refusals(): Refusal[] {
    this.refusalsValue ??=
      this.body && this.account ? (handlerOf(this.facts!.model.key).refusals?.(this.request, this.gw) ?? []) : [];
    return this.refusalsValue;
  }
}

/** A check of the request; its error kind may be named by the profile. */
interface Check {
  kind: ErrorKind | ((profile: Gateway['profile']) => ErrorKind);
  failed(s: RequestState): string | undefined;
}

/** The gateway's checks; `handle` runs them in the profile's precedence order. */
const CHECKS: Check[] = [
  { kind: 'unknownPath', failed: (s) => (s.route ? undefined : 'no operation at this path') },
  {
    kind: 'methodNotAllowed',
    failed: (s) => (s.incoming.method === 'POST' ? undefined : `method ${s.incoming.method}`),
  },
  { kind: 'bodyTooLarge', failed: (s) => (s.incoming.tooLarge ? 'body over the size cap' : undefined) },
  {
    kind: 'malformedBody',
    failed: (s) =>
      (s.incoming.tooLarge && !s.incoming.body) || s.body || s.overCap
        ? undefined
        : 'body is not a readable JSON object or form',
  },
  { kind: 'invalidInput', failed: (s) => s.overCap ?? s.loneSurrogate ?? s.longField },
  // A posted-back checkout form comes from the shopper's browser, which sends no merchant header.
  {
    kind: (p) => p.requestHeaders.onMissing,
    failed: (s) => (s.body && !s.postBack ? headerProblem(s.gw, s.incoming, s.body) : undefined),
  },
  {
    kind: 'unknownRecord',
    failed: (s) => (s.postBack && !postBackSession(s.gw, s.body!) ? 'unknown checkout session' : undefined),
  },
  {
    kind: (p) => p.errors.unknownMerchant,
    failed: (s) => (s.ready && !s.account ? 'unknown merchant account' : undefined),
  },
  {
    kind: 'refusedAddress',
    failed: (s) =>
      s.ready &&
      s.account &&
      !s.gw.switches.skipAddressRestriction &&
      s.gw.profile.addressRestriction.operations.includes(s.facts!.model.key) &&
      !isRegistered(s.account.merchant, s.incoming.remoteAddress)
        ? 'source address not registered'
        : undefined,
  },
  {
    kind: 'badSignature',
    failed: (s) =>
      s.ready && s.account && s.gw.switches.signatureCheck !== 'afterOperation' ? signatureProblem(s) : undefined,
  },
  {
    kind: 'invalidInput',
    failed: (s) => {
      if (!s.ready) return undefined;
      const hit = s.gw.switches.skipSchemaValidation
        ? undefined
        : s.violations.find((x) => x.scope === 'request' && !unsignedLetThrough(s, x.v));
      return hit
        ? `${hit.v.instancePath || '/'} ${hit.v.message}`
        : s.gw.refuseAlso?.(s.facts!.model.key, s.body!, s.parsed!.encoding, s.facts!.model);
    },
  },
  {
    kind: 'overLimit',
    failed: (s) => (s.ready && refusesOverLimit(s.gw) && overBatchLimit(s) ? 'too many orders' : undefined),
  },
];

/**
 * Whether an oversized body must be read to be answered: the profile puts `malformedBody` before `bodyTooLarge`
 * for some operation, so a body over the size cap that cannot be parsed is answered as malformed (the server keeps
 * it, up to the length past which it closes the connection anyway).
 */
export function readsOversizedBody(profile: Gateway['profile']): boolean {
  const orders = [profile.errors.precedence, ...Object.values(profile.errors.precedenceByOperation ?? {})];
  return orders.some((o) => {
    const malformed = o.indexOf('malformedBody');
    return malformed !== -1 && malformed < o.indexOf('bodyTooLarge');
  });
}

/**
 * The checks in the profile's precedence order for an operation (none: a path of no operation), each kind followed
 * by the operations' own refusals of that kind.
 */
function orderedChecks(
  profile: Gateway['profile'],
  operation?: OperationKey,
): { kind: ErrorKind; failed(s: RequestState): string | undefined }[] {
  const out: { kind: ErrorKind; failed(s: RequestState): string | undefined }[] = [];
  for (const kind of precedenceOf(profile, operation)) {
    for (const c of CHECKS)
      if ((typeof c.kind === 'function' ? c.kind(profile) : c.kind) === kind) out.push({ kind, failed: c.failed });
    out.push({ kind, failed: (s) => (s.ready ? s.refusals.find((r) => r.kind === kind)?.reason : undefined) });
  }
  return out;
}

/** The error answer of a refused request. */
function refused(s: RequestState, kind: ErrorKind, reason: string): Handled {
  // An unreadable body on a path of several variants (direct or APM payment) is refused as an HTTP error, as the APM payment requires.
  const unknownVariant = !s.body && (s.route?.variants.length ?? 0) > 1;
  return {
    reply: errorReply(s.gw, kind, s.facts?.model.key, s.body, s.account?.secret, undefined, unknownVariant, reason),
    op: s.facts?.model,
    errorKind: kind,
    reason,
    body: s.body,
  };
}

/** Handle one request. Synchronous: checks and the operation run without yielding. */
export function handle(gw: Gateway, routes: Routes, incoming: Incoming): Handled {
  const page = handlePage(gw, incoming);
  if (page) return page;
  const s = new RequestState(gw, incoming, routes.byPath.get(incoming.path));
  // The operation's own check order (the body selects the variant of a shared path).
  const op = s.facts?.model.key;
  for (const check of (op && routes.checksByOperation.get(op)) || routes.checks) {
    const reason = check.failed(s);
    if (reason) return refused(s, check.kind, reason);
  }
  const facts = s.facts!;
  if (s.postBack) return { reply: postBackPage(gw, postBackSession(gw, s.body!)!), op: facts.model, body: s.body };
  const reply = handlerOf(facts.model.key).run(s.request, gw);
  // A fault may check the signature only once the operation has run: the refused request has changed the state.
  const late = gw.switches.signatureCheck === 'afterOperation' ? signatureProblem(s) : undefined;
  return late ? refused(s, 'badSignature', late) : { reply, op: facts.model, body: s.body };
}
