/**
 * One request the proxy passed on and the answer it passed back, as the kit's `Exchange`: the operation its path
 * (and body) names, the body read as the merchant sent it (JSON or form fields, whatever it declares: rule 6), the
 * answer decoded as a run decodes one, and the masked evidence built when a report first reads it. The proxy judges
 * these with the checks a run applies to its own exchanges.
 */
import { createHash } from 'node:crypto';
import { sniffBody } from '../core/codecs/form.js';
import { type MaskRules, noteSentCardValues } from '../core/mask.js';
import type { Exchange, OperationKey, ReceivedResponse, SentRequest } from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import type { SpecModel } from '../core/spec/load.js';
import { decodeBody } from '../engine/decode.js';
import { buildEvidence, cardFieldNames } from '../engine/evidence.js';
import { operationOf } from '../pact/verify.js';

/** What the proxy saw of one request, before it was forwarded. */
export interface SeenRequest {
  method: string;
  /** The request's path and query, as the merchant sent it. */
  path: string;
  /** The URL it was forwarded to (the upstream's). */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the upstream answered (or why it did not). */
export interface SeenAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body passed the size the proxy judges: it was forwarded whole, judged cut. */
  truncated: boolean;
}

/** The operation of a request: its path under the interface (query left out) and, for a shared path, its body. */
export function operationOfRequest(
  spec: SpecModel,
  path: string,
  body: Record<string, unknown>,
): OperationKey | undefined {
  return operationOf(spec, path.split('?')[0]!, body);
}

/** The request body as fields (JSON object or form fields) and how it was encoded; `raw` when it is neither. */
export function readRequestBody(text: string): {
  body: Record<string, unknown> | undefined;
  encoding: SentRequest['encoding'];
} {
  const read = sniffBody(text);
  return read ? { body: read.value, encoding: read.encoding } : { body: undefined, encoding: 'raw' };
}

/** Header value by name (case-insensitive). */
function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/** What the exchange builder needs: the spec, the profile, the mask rules and an id counter. */
export interface ExchangeContext {
  spec: SpecModel;
  profile: Profile;
  rules: MaskRules;
}

/** The exchange of one forwarded request on `operation`, with the answer decoded as a run decodes one. */
export async function toExchange(
  ctx: ExchangeContext,
  id: string,
  operation: OperationKey,
  seen: SeenRequest,
  answer: SeenAnswer | { error: string },
  startedAt: number,
  durationMs: number,
): Promise<Exchange> {
  const text = seen.body.toString('utf8');
  const { body, encoding } = readRequestBody(text);
  const sent: SentRequest = {
    method: seen.method,
    url: seen.url,
    headers: seen.headers,
    body,
    bodyText: text,
    encoding,
  };
  let response: ReceivedResponse | undefined;
  if ('status' in answer) {
    const bodyText = answer.body.toString('utf8');
    response = {
      status: answer.status,
      headers: answer.headers,
      bodyText,
      truncated: answer.truncated,
      decoded: await decodeBody(
        ctx.spec,
        ctx.profile,
        operation,
        answer.status,
        header(answer.headers, 'content-type'),
        bodyText,
        answer.truncated,
        header(answer.headers, 'content-encoding'),
      ),
      bytes: { length: answer.body.length, sha256: createHash('sha256').update(answer.body).digest('hex') },
    };
  }
  const echoes = body ? noteSentCardValues(cardFieldNames(ctx.profile).map((f) => body[f])) : [];
  let evidence: Exchange['evidence'] | undefined;
  const record = {
    id,
    operation,
    request: sent,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: Math.round(durationMs * 10) / 10,
    get evidence(): Exchange['evidence'] {
      return (evidence ??= buildEvidence(sent, response, ctx.rules, undefined, {}, undefined, echoes));
    },
    set evidence(value: Exchange['evidence']) {
      evidence = value;
    },
  } as Exchange;
  if (response) record.response = response;
  else if ('error' in answer) record.error = { kind: 'network', message: answer.error };
  if (echoes.length) Object.defineProperty(record, 'sentCardEchoes', { value: echoes, enumerable: false });
  return record;
}
