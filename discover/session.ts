/**
 * A discovery session: the engine's probe client (signing, encoding, rate limit, egress to the target only, size
 * caps, masking) driven by a working profile that fills up as discovery learns the gateway, the kit's notification
 * receiver, and the draft. Every answer carrying `encryption_data` is kept for the offline signature search.
 */
import { randomUUID } from 'node:crypto';
import { createProbeClient, type KitClient, type TransportOptions } from '../engine/client.js';
import { startReceiver, type Receiver } from '../engine/receiver.js';
import { cardFields, sampleBody } from '../engine/sample.js';
import { sinkUrlOf } from '../engine/sink.js';
import { maskText, type MaskRules } from '../core/mask.js';
import type { Exchange, OperationKey, RunConfigView } from '../core/model.js';
import { loadProfile, type Profile } from '../core/profile/load.js';
import { sign, type SignatureProfile } from '../core/signing.js';
import { kitSpec, type SpecModel } from '../core/spec/load.js';
import { Draft } from './draft.js';
import type { FromProfile } from './from.js';
import type { SignedSample } from './scheme.js';
import { responseFields } from './fields.js';
import { CARD_FIELD_CANDIDATES } from './vocabulary.js';
import { BudgetSpent } from '../core/types/errors.js';
import type { SelectingOperation } from '../core/profile/operations.js';

/** What a discovery needs to reach the target. */
export interface SessionOptions {
  baseUrl: string;
  merchantId: string;
  accountId: string;
  secret: string;
  transport: TransportOptions;
  cardSecurityCode: string;
  orderPrefix: string;
  paymentMethods: { valid: string[]; unknown: string };
  /** Test cards the config names (approve, decline): tried first. */
  cards?: Record<string, string>;
  /** Second local source address, not registered with the target (the address restriction). */
  unregisteredAddress?: string;
  /** Where the notification receiver listens, and the URL the target reaches it at (remote targets). */
  notify?: { listenOn: string; publicUrl?: string };
  /** Most requests discovery may send. */
  budget: number;
  /** The vendor's partial profile (`--from`): its points seed the working profile (its unstated ones hold defaults). */
  from?: FromProfile;
  log: (line: string) => void;
}

/** How a request is signed: the session's current scheme, a candidate scheme, or not at all. */
export type SignWith = 'current' | false | SignatureProfile;

/** Options of one request. */
export interface SendOptions {
  sign?: SignWith;
  /** Replace the computed signature (a wrong one, a case-changed one). */
  signature?: (computed: string | undefined) => string | undefined;
  encoding?: 'json' | 'form';
  contentType?: string;
  rawBody?: string;
  path?: string;
  method?: string;
  localAddress?: string;
  /** Sign this body instead of the one sent (a field changed after signing). */
  signedBody?: Record<string, unknown>;
  /**
   * Keep the payout's idempotency key even when it was sent before with another body (the replay probe). Without it
   * such a key is replaced by a fresh one: a probe changing a field of a payout means a new payout, not a replay.
   */
  sameKey?: boolean;
  /**
   * Counted apart from the budget, against `SWEEP_BUDGET`: the search of the capture's signature recipe (signature.ts
   * `captureScheme`: the catalogue, and with no signed answer the recipes one choice away from it).
   */
  sweep?: boolean;
}

/** Requests the search of the capture's signature recipe may send beyond the budget (the whole search: 2,292). */
export const SWEEP_BUDGET = 2500;

export { BudgetSpent };

/** The card field names of a profile (a name `--from` states is masked like the common ones). */
function statedCardFields(p: Profile): string[] {
  const { number, expiryMonth, expiryYear, securityCode } = p.fields.card;
  return [number, expiryMonth, expiryYear, securityCode];
}

/** A discovery session. */
export class Session {
  readonly spec: SpecModel;
  /** The profile as known so far: what the client signs, encodes and decodes with (starts as the defaults). */
  readonly work: Profile;
  /** The format's defaults (the reference profile), never changed. */
  readonly defaults: Profile;
  readonly draft = new Draft();
  readonly rules: MaskRules;
  readonly samples: (SignedSample & { exchange: Exchange })[] = [];
  readonly config: RunConfigView;
  /** Fields found to select records (the selection row), for the queries of later rows. */
  readonly selecting: Partial<Record<SelectingOperation, string[]>> = {};
  /** Every 2xx answer holding a body of fields, with its operation: what the responseFields row reads. */
  readonly answers: { operation: OperationKey; exchange: Exchange }[] = [];
  /** Requests sent so far. */
  requests = 0;
  /** Of them, the signature sweep's (`SendOptions.sweep`: not counted against the budget). */
  sweepRequests = 0;
  receiver?: Receiver;
  private client?: KitClient;
  private counter = 0;

  constructor(readonly options: SessionOptions) {
    this.spec = kitSpec();
    this.defaults = loadProfile('reference').profile;
    this.work = structuredClone(options.from?.loaded.profile ?? this.defaults);
    const cards = {
      approve: options.cards?.approve ?? this.defaults.payments.testCards.approve[0]!,
      decline: options.cards?.decline ?? this.defaults.payments.testCards.decline[0]!,
    };
    this.config = {
      baseUrl: options.baseUrl,
      merchantId: options.merchantId,
      accountId: options.accountId,
      orderPrefix: `${options.orderPrefix}-${randomUUID().slice(0, 6)}`,
      seed: 0,
      cards,
      paymentMethods: options.paymentMethods,
      notifyWaitMs: 0,
      ...(options.unregisteredAddress ? { unregisteredAddress: options.unregisteredAddress } : {}),
    };
    // Every candidate card field name is masked, whichever the target turns out to use.
    this.rules = {
      secrets: [options.secret],
      cards: Object.values(cards),
      fields: [...Object.values(CARD_FIELD_CANDIDATES).flat(), ...statedCardFields(this.work)],
    };
  }

  /** Start the receiver (when notifications can reach it) and the client. */
  async start(): Promise<void> {
    if (this.options.notify) {
      this.receiver = await startReceiver({
        listenOn: this.options.notify.listenOn,
        ...(this.options.notify.publicUrl ? { publicUrl: this.options.notify.publicUrl } : {}),
        rules: this.rules,
      });
      this.config.notifyUrl = this.receiver.notifyUrl;
    }
    this.client = createProbeClient({
      spec: this.spec,
      profile: this.work,
      config: this.config,
      secret: this.options.secret,
      cardSecurityCode: this.options.cardSecurityCode,
      transport: this.options.transport,
      tag: 'd',
      ...(this.receiver ? { notifications: this.receiver } : {}),
    });
  }

  async close(): Promise<void> {
    await this.client?.close();
    await this.receiver?.close();
  }

  /** A fresh order number. */
  orderNo(): string {
    return `${this.config.orderPrefix}-${++this.counter}`;
  }

  /** A valid body for an operation as the working profile knows it (card fields, cookie name, notify sink). */
  body(op: OperationKey, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return sampleBody(
      this.spec,
      this.work,
      { config: this.config, cardSecurityCode: this.options.cardSecurityCode },
      op,
      { orderNo: this.orderNo(), requestId: randomUUID() },
      overrides,
    );
  }

  /** The card fields as the working profile names them, filled with a test card (default: the approving one). */
  cardBody(number = this.config.cards.approve!, securityCode = this.options.cardSecurityCode): Record<string, string> {
    return cardFields(this.work, number, securityCode);
  }

  /** The notification sink URL (set-up payments' notify_url), or the example's URL when no receiver runs. */
  sinkUrl(): string | undefined {
    return this.config.notifyUrl ? sinkUrlOf(this.config.notifyUrl) : undefined;
  }

  /** `encryption_data` of a body under a signature section (undefined: that direction is not signed). */
  signatureOf(sig: SignatureProfile, op: OperationKey, body: Record<string, unknown>): string | undefined {
    return sign(sig, 'request', op, body, this.options.secret);
  }

  /** Send one request to the target (signed as `options.sign` says); counted against the budget. */
  async send(op: OperationKey, body: Record<string, unknown>, options: SendOptions = {}): Promise<Exchange> {
    if (!this.client) throw new Error('discovery session not started');
    this.charge(options.sweep);
    if (op === 'payout' && !options.sameKey) {
      body = this.freshKey(body);
      if (options.signedBody) options = { ...options, signedBody: this.freshKey(options.signedBody, false) };
    }
    const scheme = options.sign === undefined || options.sign === 'current' ? this.work.signature : options.sign;
    let sent = body;
    if (scheme && options.rawBody === undefined) {
      const computed = this.signatureOf(scheme, op, options.signedBody ?? body);
      const signature = options.signature ? options.signature(computed) : computed;
      sent = { ...body };
      delete sent.encryption_data;
      if (signature !== undefined) sent.encryption_data = signature;
    }
    const x = await this.client.send(op, sent, {
      sign: false,
      encoding: options.encoding ?? this.work.requestMedia.types[op],
      ...(options.contentType ? { contentType: options.contentType } : {}),
      ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : {}),
      ...(options.path ? { path: options.path } : {}),
      ...(options.method ? { method: options.method } : {}),
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      record: false,
    });
    this.keepSample(op, x);
    return x;
  }

  /** Bodies sent per payout idempotency key (JSON without the signature). */
  private readonly payoutKeys = new Map<string, string>();

  /** The body with a fresh idempotency key when its key was sent before with another body. */
  private freshKey(body: Record<string, unknown>, record = true): Record<string, unknown> {
    const field = this.work.payout.idempotencyKey;
    const key = body[field];
    if (typeof key !== 'string') return body;
    const { encryption_data: _, ...rest } = body;
    const text = JSON.stringify(rest);
    const before = this.payoutKeys.get(key);
    if (before === undefined || before === text) {
      if (record) this.payoutKeys.set(key, text);
      return body;
    }
    const out = { ...body, [field]: randomUUID() };
    const { encryption_data: __, ...kept } = out;
    if (record) this.payoutKeys.set(out[field] as string, JSON.stringify(kept));
    return out;
  }

  /** Count one request against the budget, or the signature search's (`sweep`); throws when it is spent. */
  private charge(sweep: boolean | undefined): void {
    if (sweep) {
      if (this.sweepRequests >= SWEEP_BUDGET)
        throw new BudgetSpent(`the signature search's ${SWEEP_BUDGET} requests are spent`);
      this.sweepRequests++;
    } else if (this.requests - this.sweepRequests >= this.options.budget)
      throw new BudgetSpent(`the budget of ${this.options.budget} requests is spent`);
    this.requests++;
  }

  /** Request a page the target handed over (an issuer page), as a shopper's browser would; target origin only. */
  async follow(url: string, form?: Record<string, string>): Promise<Exchange> {
    if (!this.client?.follow) throw new Error('discovery session not started');
    this.charge(false);
    return this.client.follow(url, form ? { method: 'POST', form } : { method: 'GET' });
  }

  private keepSample(op: OperationKey, x: Exchange): void {
    const d = x.response?.decoded;
    const value = d?.kind === 'json' ? d.value : d?.kind === 'xml' ? d.value : undefined;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return;
    const body = value as Record<string, unknown>;
    const status = x.response?.status ?? 0;
    if (status >= 200 && status < 300) this.answers.push({ operation: op, exchange: x });
    if (typeof body.encryption_data === 'string' && body.encryption_data !== '')
      this.samples.push({
        operation: op,
        body,
        signature: body.encryption_data,
        documented: responseFields(this.spec, op),
        exchange: x,
      });
  }

  /** Masked one-line evidence of an exchange: the request and an excerpt of the answer (its fields, not its markup). */
  evidence(x: Exchange, note = ''): string {
    const path = new URL(x.request.url).pathname;
    const local = x.request.localAddress ? ` from ${x.request.localAddress}` : '';
    const sent = x.request.bodyText.replace(/("?encryption_data"?\s*[:=]\s*"?)[0-9A-Za-z+/%=]{20,}/g, '$1…');
    const req = `${x.request.method} ${path}${local}${sent ? ` ${excerpt(sent, 60)}` : ''}`;
    const r = x.response;
    let answer = '';
    if (r) {
      const d = r.decoded;
      const value = d.kind === 'json' || d.kind === 'xml' ? d.value : undefined;
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const { merchant_id: _m, account_id: _a, encryption_data: signed, ...rest } = value as Record<string, unknown>;
        answer = `${d.kind === 'xml' ? `<${d.root}> ` : ''}${excerpt(JSON.stringify(rest), 150)}${signed ? ' (signed)' : ''}`;
      } else if (d.kind === 'html')
        answer = `page with ${d.form.forms} form(s), ${Object.keys(d.form.inputs).length} inputs`;
      else answer = excerpt(r.bodyText.replace(/\s+/g, ' '), 150);
    }
    const res = r ? `HTTP ${r.status} ${answer}` : `no answer (${x.error?.kind ?? 'error'})`;
    return maskText(`${note ? `${note}: ` : ''}${req} → ${res}`, this.rules);
  }
}

function excerpt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
