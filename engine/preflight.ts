/**
 * The pre-flight of a run: a few signed requests, side-effect free, sent before any suite starts, that tell a set-up
 * mistake from non-conformance. When every answer is the same authentication refusal (the kit's credentials or
 * signature refused), or no answer comes from a PAGI operation (a plain web server, a base URL that misses the
 * gateway), the run stops with one sentence (exit 2) and writes no report. A target that answers some requests and
 * not others is judged by the suites as usual.
 */
import { readConfigFile } from '../core/config/load.js';
import { optionsOf, type RunOptions } from '../core/config/options.js';
import { maskText, type MaskRules } from '../core/mask.js';
import type { Exchange, OperationKey, RunConfigView } from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import type { SpecModel } from '../core/spec/load.js';
import { operationSet } from '../core/spec/operations.js';
import { createProbeClient, type ClientOptions } from './client.js';
import { decodedText, formatOfMediaType } from './decode.js';
import { SetupError } from '../core/types/errors.js';

export { SetupError };

/**
 * Operations the pre-flight may use, in order of preference: read-only ones (the spec's selections the document does
 * not limit to registered addresses), then batch operations whose one item names a transaction no gateway knows
 * (answered by a failed item, nothing changed), then the address-restricted selections. Operations the profile limits
 * to registered addresses are left out by the caller (their refusal would hide the one looked for).
 */
function candidates(spec: SpecModel): OperationKey[] {
  const restricted = operationSet(spec, 'addressRestricted');
  const selecting = operationSet(spec, 'selecting');
  return [
    ...selecting.filter((op) => !restricted.includes(op)),
    ...operationSet(spec, 'batch'),
    ...selecting.filter((op) => restricted.includes(op)),
  ];
}

/** Requests the pre-flight sends to operations (besides the one to a path of no operation). */
const REQUESTS = 2;

/** A path no operation has, under the base URL: what the target answers there is what "not served" looks like. */
export const NO_OPERATION_PATH = '/v1/pagiKitNoSuchOperation';

/** Statuses a web server gives a path or method it does not serve. */
const NOT_SERVED_STATUSES = new Set([404, 405, 501]);

/** Fields of a PAGI answer (any operation's envelope or error body) that a plain web server does not send. */
const PAGI_FIELDS = ['merchant_id', 'account_id', 'return_status', 'return_message', 'result_info', 'order_status'];

type ErrorKind = keyof Profile['errors']['kinds'];

/** How one pre-flight answer reads. */
export type AnswerClass = 'authRefusal' | 'notServed' | 'served' | 'noAnswer';

/** What the pre-flight needs of a run. */
export interface PreflightInput
  extends Pick<ClientOptions, 'spec' | 'profile' | 'config' | 'secret' | 'cardSecurityCode' | 'transport'> {
  options: RunOptions;
  /** The configured credentials were not given and the embedded gateway's were used. */
  embedded: boolean;
}

function topLevel(x: Exchange): Record<string, unknown> | undefined {
  const d = x.response?.decoded;
  if (d?.kind === 'json' && d.value && typeof d.value === 'object' && !Array.isArray(d.value))
    return d.value as Record<string, unknown>;
  if (d?.kind === 'xml') return d.value;
  return undefined;
}

/** Top-level string fields the profile's error bodies put `{code}` in (where a refusal says which it is). */
function codeFields(profile: Profile): string[] {
  const fields = new Set<string>();
  for (const body of [profile.errors.bodies.json.body, profile.errors.bodies.xml.body] as Record<string, unknown>[]) {
    for (const [name, template] of Object.entries(body ?? {}))
      if (typeof template === 'string' && template.includes('{code}')) fields.add(name);
  }
  return [...fields];
}

/** The `<code>:<message>` text of an answer, when it has one where the profile's error bodies put it. */
function codeText(profile: Profile, x: Exchange): string | undefined {
  const body = topLevel(x);
  for (const field of codeFields(profile)) {
    const value = body?.[field];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return undefined;
}

/**
 * The profile error kind an answer is: its code where the profile's error bodies put it (whatever the HTTP status:
 * a gateway may refuse with HTTP 200), or the kind's status with `<code>:` anywhere in the body (an HTML page).
 */
export function errorKindOf(profile: Profile, x: Exchange): ErrorKind | undefined {
  const status = x.response?.status;
  const text = codeText(profile, x);
  for (const [kind, k] of Object.entries(profile.errors.kinds) as [ErrorKind, { status: number; code: string }][]) {
    if (text !== undefined && (text === k.code || text.startsWith(`${k.code}:`))) return kind;
    // Decoded (read once, when the status is the kind's): a code written with character references is the same code.
    if (status === k.status && decodedText(x.response).includes(`${k.code}:`)) return kind;
  }
  return undefined;
}

/**
 * How an answer reads: an authentication refusal (HTTP 401, or the profile's badSignature — and its unknown-merchant
 * answer when that is badSignature too), not served (the profile's unknownPath or methodNotAllowed, or a 404, 405 or
 * 501 or an HTML page that is no PAGI answer), served, or no answer.
 */
export function classify(profile: Profile, x: Exchange): AnswerClass {
  const response = x.response;
  if (!response) return 'noAnswer';
  const kind = errorKindOf(profile, x);
  if (kind === 'badSignature' || (kind === undefined && response.status === 401)) return 'authRefusal';
  if (kind === 'unknownPath' || kind === 'methodNotAllowed') return 'notServed';
  if (kind) return 'served';
  const body = topLevel(x);
  if (body && PAGI_FIELDS.some((f) => f in body)) return 'served';
  if (NOT_SERVED_STATUSES.has(response.status) || formatOfMediaType(response.headers['content-type']) === 'html')
    return 'notServed';
  return 'served';
}

/** A sample request of an operation that changes nothing: batch items name a transaction no gateway knows. */
function harmlessBody(
  spec: SpecModel,
  operation: OperationKey,
  client: ReturnType<typeof createProbeClient>,
  config: RunConfigView,
): Record<string, unknown> {
  const body = client.sample(operation);
  const op = spec.operations.get(operation)!;
  const rule = op.echoItems;
  if (op.batch && rule) {
    const items = body[op.batch.orders];
    const first =
      Array.isArray(items) && items[0] && typeof items[0] === 'object' ? (items[0] as Record<string, unknown>) : {};
    const [idField, orderField] = rule.key;
    const item: Record<string, unknown> = { ...first };
    if (idField) item[idField] = `${config.orderPrefix}-preflight-unknown`;
    if (orderField) item[orderField] = client.orderNo();
    body[op.batch.orders] = [item];
  }
  return body;
}

/** Where each credential came from, as one phrase: "the environment (PAGI_SECRET)", "the config file F", … */
export function credentialSources(
  options: RunOptions,
  embedded: boolean,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const rows = optionsOf('run').filter((d) => d.key === 'merchantId' || d.key === 'accountId' || d.key === 'secret');
  let fromFile: Record<string, unknown> = {};
  try {
    fromFile = options.config ? (readConfigFile(options.config) as Record<string, unknown>) : {};
  } catch {
    // the run read it already; a file that changed since counts as not holding the value
  }
  const names: Record<string, string> = { merchantId: 'merchant id', accountId: 'account id', secret: 'secret' };
  const bySource = new Map<string, { what: string[]; vars: string[] }>();
  for (const row of rows) {
    const value = options[row.key];
    let source: string;
    let variable: string | undefined;
    if (value === undefined) source = embedded ? "the embedded reference gateway's defaults" : 'nowhere';
    else if (row.env && env[row.env] !== undefined && env[row.env] !== '' && env[row.env] === String(value)) {
      source = 'the environment';
      variable = row.env;
    } else if (options.config && fromFile[row.key] === value) source = `the config file ${options.config}`;
    else source = 'the options of run()';
    const entry = bySource.get(source) ?? { what: [], vars: [] };
    entry.what.push(names[row.key]!);
    if (variable) entry.vars.push(variable);
    bySource.set(source, entry);
  }
  const and = (list: string[]) => (list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0]!);
  return and(
    [...bySource].map(
      ([source, { what, vars }]) => `${and(what)} from ${source}${vars.length ? ` (${vars.join(', ')})` : ''}`,
    ),
  );
}

/** An answer in a few words: `HTTP 401 "1001:Invalid signature"` or `HTTP 404 (text/html)`; masked, cut short. */
function answered(profile: Profile, x: Exchange, rules: MaskRules): string {
  if (!x.response) return `no answer (${x.error?.message ?? 'no response'})`;
  const text = codeText(profile, x);
  const type = x.response.headers['content-type']?.split(';')[0]?.trim();
  const shown =
    text !== undefined
      ? ` ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)}`
      : type
        ? ` (${type})`
        : '';
  return maskText(`HTTP ${x.response.status}${shown}`.replace(/[\u0000-\u001f\u007f]/g, ' '), rules);
}

function requestsOf(exchanges: readonly Exchange[]): string {
  const list = exchanges.map((x) => `${x.request.method} ${new URL(x.request.url).pathname}`);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0]!;
}

/**
 * Whether every operation was answered HTTP 404 exactly as the path of no operation (`control`) was: same status, same
 * code text (or, without one, same media type). A gateway that serves the operations answers a path of none with its
 * unknown-path refusal, which differs from any answer of an operation (an unknown record is a 404 too, with its own
 * code); a base URL with a wrong path prefix gets the same answer everywhere.
 */
function answeredAsNoOperation(
  profile: Profile,
  exchanges: readonly Exchange[],
  control: Exchange | undefined,
): boolean {
  if (control?.response?.status !== 404) return false;
  const sign = (x: Exchange) =>
    `${x.response?.status} ${codeText(profile, x) ?? x.response?.headers['content-type']?.split(';')[0]?.trim() ?? ''}`;
  return exchanges.every((x) => x.response?.status === 404 && sign(x) === sign(control));
}

/**
 * The sentence for answers that all say the same thing, or undefined when the run goes on. `control` is the answer to
 * a request of a path no operation has (NO_OPERATION_PATH), when one was sent.
 */
export function verdictOfPreflight(
  input: Pick<PreflightInput, 'profile' | 'config' | 'options' | 'embedded'>,
  exchanges: readonly Exchange[],
  rules: MaskRules,
  control?: Exchange,
): string | undefined {
  if (!exchanges.length) return undefined;
  const classes = exchanges.map((x) => classify(input.profile, x));
  const base = input.config.baseUrl;
  const target = input.embedded ? `The embedded reference gateway at ${base}` : `The target ${base}`;
  const all = (c: AnswerClass) => classes.every((k) => k === c);
  const first = exchanges[0]!;
  const same = new Set(exchanges.map((x) => answered(input.profile, x, rules))).size === 1;
  const both = exchanges.length > 1 ? (same ? 'were each answered' : 'were answered') : 'was answered';
  if (all('authRefusal') && same) {
    const kind = errorKindOf(input.profile, first);
    return (
      `${target} refused the kit's credentials before any check ran: ${requestsOf(exchanges)} ${both} ${answered(input.profile, first, rules)}` +
      `${kind ? ` (the profile's ${kind})` : ' (an authentication refusal)'}; ` +
      `credentials used: ${credentialSources(input.options, input.embedded)}; check them, and that the profile ${input.profile.name} describes the gateway's signature.`
    );
  }
  if (all('notServed')) {
    const shown = same
      ? answered(input.profile, first, rules)
      : exchanges.map((x) => answered(input.profile, x, rules)).join(', ');
    const hint = /\/v1\/?$/.test(new URL(base).pathname)
      ? `; the base URL already ends in /v1 and the kit adds /v1/<operation> to it: use --target ${base.replace(/\/v1\/?$/, '')}`
      : '; check --target: it is the base URL the operations\u2019 /v1/… paths are added to';
    return `${target} is not a PAGI gateway: ${requestsOf(exchanges)} ${both} ${shown}, not by an operation of the interface, so no check ran${hint}.`;
  }
  if (answeredAsNoOperation(input.profile, exchanges, control)) {
    const at = `${base}/v1/\u2026`;
    return `Nothing answers at ${at}: ${requestsOf(exchanges)} ${both} ${answered(input.profile, first, rules)}, as ${requestsOf([control!])} (a path of no operation) was, so none of the operations is served there and no check ran; check the base URL (--target): the operations' /v1/\u2026 paths are added to it, path prefix included.`;
  }
  return undefined;
}

/** Send the pre-flight requests and throw a SetupError when they show a set-up mistake. */
export async function preflight(input: PreflightInput): Promise<void> {
  const restricted = new Set<string>(input.profile.addressRestriction?.operations ?? []);
  const operations = candidates(input.spec)
    .filter((op) => !restricted.has(op))
    .slice(0, REQUESTS);
  if (!operations.length) return;
  const client = createProbeClient({
    spec: input.spec,
    profile: input.profile,
    config: input.config,
    secret: input.secret,
    cardSecurityCode: input.cardSecurityCode,
    transport: input.transport,
    tag: 'preflight',
    readPages: false,
  });
  try {
    const [control, ...exchanges] = await Promise.all([
      client.send(operations[0]!, harmlessBody(input.spec, operations[0]!, client, input.config), {
        path: NO_OPERATION_PATH,
      }),
      ...operations.map((op) => client.send(op, harmlessBody(input.spec, op, client, input.config))),
    ]);
    const sentence = verdictOfPreflight(input, exchanges, client.maskRules, control);
    if (sentence) throw new SetupError(sentence);
  } finally {
    await client.close();
  }
}
