/** Masked, printable evidence of an exchange, built once when the exchange is recorded. */
import { createHash } from 'node:crypto';
import { maskEchoedHeaders, maskEchoedValues, maskText, maskValue, type MaskRules } from '../core/mask.js';
import type { Profile } from '../core/profile/load.js';
import { ifStated } from '../core/profile/reads.js';
import type { Evidence, Exchange, ExchangeRecord, OperationKey, ReceivedResponse, SentRequest } from '../core/model.js';
import { stringToSign, type SignatureProfile } from '../core/signing.js';

/** Longest response body excerpt kept in evidence, in characters. */
export const EXCERPT_CHARS = 4096;

/**
 * Longest request body kept whole in evidence, in characters. A longer one (a body over a size limit, sent to see it
 * refused) is kept once, cut to EXCERPT_CHARS, with its length and sha-256; its curl line reads it from a file.
 */
export const REQUEST_BODY_CHARS = 64 * 1024;

/** Most headers of a response kept in evidence, and the longest value kept of each (characters). */
const EVIDENCE_HEADERS = 100;
const EVIDENCE_HEADER_CHARS = 1024;

/** The first EVIDENCE_HEADERS headers, each value cut at EVIDENCE_HEADER_CHARS (with '…'). */
function boundedHeaders(headers: Record<string, string>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length <= EVIDENCE_HEADERS && entries.every(([, v]) => v.length <= EVIDENCE_HEADER_CHARS)) return headers;
  return Object.fromEntries(
    entries
      .slice(0, EVIDENCE_HEADERS)
      .map(([k, v]) => [
        k.slice(0, EVIDENCE_HEADER_CHARS),
        v.length > EVIDENCE_HEADER_CHARS ? `${v.slice(0, EVIDENCE_HEADER_CHARS)}…` : v,
      ]),
  );
}

/** Text masked past the excerpt's cut: longer than a card number run and than any written form of a secret. */
function maskMargin(rules: MaskRules): number {
  return Math.max(512, ...(rules.secrets ?? []).map((s) => s.length * 6));
}

/**
 * The profile's card fields: number, expiry month and year, security code; those the profile does not state are
 * left out (the kit then sends no card: nothing of one to mask by name; the test cards are masked by value).
 */
export function cardFieldNames(profile: Profile): string[] {
  const card = profile.fields.card;
  return [
    ifStated(() => card.number),
    ifStated(() => card.expiryMonth),
    ifStated(() => card.expiryYear),
    ifStated(() => card.securityCode),
  ].filter((name): name is string => typeof name === 'string');
}

/** What to mask in a run: the secret, the configured test cards and the profile's card fields (values by name). */
export function maskRulesFor(profile: Profile, secret: string, cards: readonly string[]): MaskRules {
  return { secrets: secret ? [secret] : [], cards, fields: cardFieldNames(profile) };
}

/** Quote a word for a POSIX shell. */
function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The signature's value in a masked body as `***`, for the curl line's `$PAGI_SIGNATURE`. */
function markSignature(body: string): string {
  return body
    .replace(/("encryption_data"\s*:\s*)"[^"]*"/, '$1"***"')
    .replace(/((?:^|&)encryption_data=)[^&]*/, '$1***');
}

/** Shell variables standing for masked request fields in curl lines: field name → variable name. */
export type CurlVariables = Readonly<Record<string, string>>;

/** The profile's card fields as `$PAGI_CARD`, `$PAGI_CARD_MONTH`, `$PAGI_CARD_YEAR` and `$PAGI_CVC`. */
export function curlVariablesFor(profile: Profile): CurlVariables {
  const card = profile.fields.card;
  const named: [string | undefined, string][] = [
    [ifStated(() => card.number), 'PAGI_CARD'],
    [ifStated(() => card.expiryMonth), 'PAGI_CARD_MONTH'],
    [ifStated(() => card.expiryYear), 'PAGI_CARD_YEAR'],
    [ifStated(() => card.securityCode), 'PAGI_CVC'],
  ];
  return Object.fromEntries(named.filter((n): n is [string, string] => n[0] !== undefined));
}

const SLOT = '\u0000';

/**
 * Mark the masked values (`***`) of `variables`' fields in a masked body (JSON `"f":"***"`, form `f=***`): `J` a
 * JSON string value, `F` a form pair's `=value`. The shell text that replaces a mark keeps the field name and its
 * value apart (`"f":'"\"$V\""'`, `f'="$V"'`), so the egress masking, which hides any value written after a card
 * field's name, leaves the variable in place.
 */
function markVariables(body: string, variables: CurlVariables): string {
  let out = body;
  for (const [field, name] of Object.entries(variables)) {
    const f = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`("${f}"\\s*:\\s*)"\\*\\*\\*"`, 'g'), `$1${SLOT}J${name}${SLOT}`);
    out = out.replace(new RegExp(`((?:^|[?&])${f})=\\*\\*\\*(?=&|$)`, 'g'), `$1${SLOT}F${name}${SLOT}`);
  }
  return out;
}

/** The shell text of the marks in a single-quoted word. */
function unmark(quoted: string): string {
  return quoted.replace(new RegExp(`${SLOT}([JF])([A-Z_]+)${SLOT}`, 'g'), (_, kind: string, name: string) =>
    kind === 'J' ? `'"\\"$${name}\\""'` : `'="$${name}"'`,
  );
}

/** Stand-in of a variable's value in a string to sign: letters and underscores, unchanged by URL encoding. */
const stand = (name: string) => `__${name}__`;

/**
 * The one-line shell command that computes a request's signature into `PAGI_SIGNATURE`, from `$PAGI_SECRET` and
 * the card fields as `variables`: the profile's string to sign, then sha256 (secret appended) or HMAC-SHA256 with
 * coreutils/openssl, in the profile's encoding. Undefined when the profile does not sign the request.
 */
export function signatureCommand(
  sig: SignatureProfile,
  operation: OperationKey,
  body: Record<string, unknown>,
  variables: CurlVariables,
): string | undefined {
  const stood = { ...body };
  for (const [field, name] of Object.entries(variables))
    if (typeof stood[field] === 'string' || typeof stood[field] === 'number') stood[field] = stand(name);
  const text = stringToSign(sig, 'request', operation, stood);
  if (text === undefined) return undefined;
  // `x=value` is kept apart as `x'="$V"'`: the egress masking hides whatever follows a card field's `name=`.
  const quoted = shellQuote(text).replace(
    /(=?)__(PAGI_[A-Z]+)__/g,
    (_, eq: string, name: string) => `'${eq}"$${name}"'`,
  );
  const base64 = sig.encoding === 'base64';
  const algorithm = sig.algorithm;
  const hmac = algorithm.name === 'hmac-sha256';
  const input =
    algorithm.name === 'hmac-sha256'
      ? `printf '%s' ${quoted}`
      : `printf '%s' ${quoted}${shellQuote(algorithm.secretJoin)}"$PAGI_SECRET"`;
  const dgst = hmac
    ? `openssl dgst -sha256 -hmac "$PAGI_SECRET"${base64 ? ' -binary | base64' : " -r | cut -d' ' -f1"}`
    : base64
      ? 'openssl dgst -sha256 -binary | base64'
      : "sha256sum | cut -d' ' -f1";
  return `PAGI_SIGNATURE=$(${input} | ${dgst}${sig.encoding === 'hex-upper' ? ' | tr a-f A-F' : ''})`;
}

/**
 * A curl command line reproducing a request (from already masked parts). With `variables`, the masked values of
 * those fields become shell variables (`$PAGI_CARD`): exported, the line sends the request as the run did.
 */
export function curlLine(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string,
  localAddress?: string,
  variables: CurlVariables = {},
): string {
  const parts = ['curl', '-sS', '-X', method, shellQuote(url)];
  for (const [name, value] of Object.entries(headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (localAddress) parts.push('--interface', shellQuote(localAddress));
  if (body !== '') parts.push('--data-raw', unmark(shellQuote(markVariables(body.replaceAll(SLOT, ''), variables))));
  return parts.join(' ');
}

/**
 * The evidence of a request whose masked body is longer than REQUEST_BODY_CHARS: the body once, cut to its first
 * EXCERPT_CHARS characters, with its length as sent and the sha-256 of the masked text (a hash of the bytes sent
 * could be searched for the card data masked out of it); the curl line sends the body from `$PAGI_BODY_FILE`.
 */
function cutRequestEvidence(
  request: SentRequest,
  url: string,
  headers: Record<string, string>,
  masked: string,
): Evidence {
  const bodyBytes = Buffer.byteLength(request.bodyText);
  const bodySha256 = createHash('sha256').update(masked).digest('hex');
  const curl = `${curlLine(request.method, url, headers, '', request.localAddress)} --data-binary "@$PAGI_BODY_FILE" # the body (${bodyBytes} bytes, masked sha-256 ${bodySha256}) is not kept whole: its first ${EXCERPT_CHARS} characters are in the evidence`;
  return {
    request: {
      method: request.method,
      url,
      headers,
      body: `${masked.slice(0, EXCERPT_CHARS)}…`,
      bodyBytes,
      bodySha256,
      truncated: true,
    },
    curl,
  };
}

/**
 * Evidence of a request and its response, masked with `rules`. `bodyHead`: the first characters of a body not held
 * in memory (spooled), used instead of `response.bodyText`. `variables` and `signature` make the curl line replayable
 * (shell variables for the card data and the signature). `echoes`: the short card values the request sent, masked
 * in the answer where they are a whole value.
 */
export function buildEvidence(
  request: SentRequest,
  response: ReceivedResponse | undefined,
  rules: MaskRules,
  bodyHead?: string,
  variables: CurlVariables = {},
  signature?: string,
  echoes: readonly string[] = [],
): Evidence {
  const headers = maskValue(request.headers, rules);
  const url = maskText(request.url, rules);
  const body = maskText(request.bodyText, rules);
  const evidence: Evidence =
    body.length > REQUEST_BODY_CHARS
      ? cutRequestEvidence(request, url, headers, body)
      : {
          request: { method: request.method, url, headers, body },
          // With the command computing the signature, the curl line reads it from $PAGI_SIGNATURE.
          curl: `${signature ? `${signature}; ` : ''}${curlLine(request.method, url, headers, signature ? markSignature(body) : body, request.localAddress, signature ? { ...variables, encryption_data: 'PAGI_SIGNATURE' } : variables)}`, // built from masked parts
        };
  if (response) {
    // Mask a margin past the cut, then cut: a card number or secret across the cut is masked whole before it.
    const text = bodyHead ?? response.bodyText;
    const long = bodyHead !== undefined || text.length > EXCERPT_CHARS;
    // Short card values the request sent are masked where the answer holds them as a whole value (mask.ts).
    const masked = maskEchoedValues(
      maskText(long ? text.slice(0, EXCERPT_CHARS + maskMargin(rules)) : text, rules),
      echoes,
    );
    const bodyExcerpt = long ? `${masked.slice(0, EXCERPT_CHARS)}…` : masked;
    const bytes = response.bytes ?? {
      length: Buffer.byteLength(response.bodyText),
      sha256: createHash('sha256').update(response.bodyText).digest('hex'),
    };
    evidence.response = {
      status: response.status,
      headers: boundedHeaders(maskEchoedHeaders(maskValue(response.headers, rules), echoes)),
      bodyExcerpt,
      bodyBytes: bytes.length,
      bodySha256: bytes.sha256,
      ...(response.truncated ? { truncated: true } : {}),
    };
  }
  return evidence;
}

/** The printable record of an exchange for the reports: its masked evidence and timings, not the request as sent. */
export function exchangeRecord(exchange: Exchange): ExchangeRecord {
  const { id, operation, startedAt, durationMs, evidence, error, incoming } = exchange;
  return {
    id,
    operation,
    startedAt,
    durationMs,
    evidence,
    ...(error ? { error } : {}),
    ...(incoming ? { incoming } : {}),
  };
}
