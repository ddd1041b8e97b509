/**
 * Provider verification with Pact's own Verifier (`@pact-foundation/pact`): the pact's requests are replayed against
 * a gateway, whose provider states are made true through the interface itself (signed HTTP requests, like a
 * merchant), and whose requests are re-signed for the profile after Pact filled in the state's values. The
 * Verifier's proxy parses form-urlencoded bodies and forwards them as JSON text; the request filter writes every
 * body back in its media type.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeForm, encodeForm } from '../core/codecs/form.js';
import type { OperationKey } from '../core/model.js';
import { sign } from '../core/signing.js';
import type { SpecModel } from '../core/spec/load.js';
import { PROVIDER } from './interactions.js';
import { profileHeaders, STATES, StateClient, type StateClientOptions, type StateKey } from './states.js';

/** What a verification needs: the state client's settings and the pacts to verify. */
export interface VerifyOptions extends Omit<StateClientOptions, 'timeoutMs'> {
  /** Pact files (absolute paths) or URLs. */
  pactUrls: string[];
  /** Pact's log level (default `error`: the Verifier's own report is printed either way). */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  /** Broker settings, when the pacts come from a Pact Broker. */
  broker?: { url: string; token?: string; publish?: boolean; providerVersion?: string; providerBranch?: string };
}

/** One mismatch of one interaction, as the Verifier reports it. */
export interface Mismatch {
  interaction: string;
  /** `body`, `status`, `header`, … */
  kind: string;
  /** JSONPath of the field, when the mismatch concerns one. */
  path?: string;
  message: string;
}

/** The outcome of a verification. */
export interface VerifyOutcome {
  ok: boolean;
  mismatches: Mismatch[];
  /** The Verifier's JSON result as returned. */
  raw: unknown;
}

type Req = IncomingMessage & { body?: unknown; path?: string };

/** The operation a request to `path` with `body` is, on the spec's paths (the authorise variants by their selector). */
export function operationOf(spec: SpecModel, path: string, body: Record<string, unknown>): OperationKey | undefined {
  const candidates = [...spec.operations.values()].filter((op) => op.path === path);
  return candidates.find((op) =>
    op.when?.present ? op.when.present in body : op.when?.absent ? !(op.when.absent in body) : true,
  )?.key;
}

/** Re-sign (and re-encode) one request body; the bytes to forward and the profile's headers for it. */
function resignBody(
  options: Pick<VerifyOptions, 'spec' | 'profile' | 'secret' | 'merchantId' | 'accountId'>,
  path: string,
  contentType: string,
  parsed: unknown,
): { bytes: Buffer; headers: Record<string, string> } | undefined {
  let body: Record<string, unknown> | undefined;
  if (Buffer.isBuffer(parsed)) {
    const text = parsed.toString('utf8');
    try {
      body = contentType.includes('json') ? JSON.parse(text) : decodeForm(text);
    } catch {
      return undefined; // not a body the kit can sign: forwarded as it came
    }
  } else if (parsed && typeof parsed === 'object') body = { ...(parsed as Record<string, unknown>) };
  if (!body) return undefined;
  // Form fields carry nested values as JSON text (the profiles' formNestedValues: jsonText): sign them as values.
  if (contentType.includes('x-www-form-urlencoded')) body = decodeForm(encodeForm(body));
  const operation = operationOf(options.spec, path, body);
  if (!operation) return undefined;
  body.merchant_id = options.merchantId;
  body.account_id = options.accountId;
  delete body.encryption_data;
  const signature = sign(options.profile.signature, 'request', operation, body, options.secret);
  const signed =
    signature === undefined
      ? body
      : { merchant_id: body.merchant_id, account_id: body.account_id, encryption_data: signature, ...body };
  const bytes = Buffer.from(
    contentType.includes('x-www-form-urlencoded') ? encodeForm(signed) : JSON.stringify(signed),
    'utf8',
  );
  return { bytes, headers: profileHeaders(options.profile, signed) };
}

/** Mismatches out of the Verifier's JSON result (`errors[].mismatch`). */
function mismatchesOf(raw: unknown): Mismatch[] {
  let value: any = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return [];
    }
  }
  const out: Mismatch[] = [];
  for (const error of value?.errors ?? []) {
    const interaction = String(error.interaction ?? '');
    const mismatch = error.mismatch ?? {};
    const list: any[] = Array.isArray(mismatch.mismatches) ? mismatch.mismatches : [];
    if (!list.length)
      out.push({
        interaction,
        kind: String(mismatch.type ?? 'error'),
        message: String(mismatch.message ?? JSON.stringify(mismatch)),
      });
    for (const m of list) {
      const kind = String(m.type ?? 'mismatch')
        .replace(/Mismatch$/, '')
        .toLowerCase();
      const path = m.path ?? (m.key ? String(m.key) : undefined);
      out.push({
        interaction,
        kind,
        ...(path ? { path: String(path) } : {}),
        message: String(m.mismatch ?? m.description ?? JSON.stringify(m)),
      });
    }
  }
  return out;
}

/** Run Pact's Verifier; resolves with the outcome (never rejects for failed interactions). */
export async function verifyPact(options: VerifyOptions): Promise<VerifyOutcome> {
  const { Verifier } = await import('@pact-foundation/pact');
  const client = new StateClient({ ...options });
  const stateHandlers: Record<string, () => Promise<Record<string, string>>> = {};
  for (const key of Object.keys(STATES) as StateKey[]) stateHandlers[STATES[key].name] = () => client.setUp(key);
  const requestFilter = (req: Req, _res: ServerResponse, next: () => void): void => {
    const path = req.path ?? req.url ?? '';
    if (path.startsWith('/v1/')) {
      const resigned = resignBody(options, path, String(req.headers['content-type'] ?? ''), req.body);
      if (resigned) {
        req.body = resigned.bytes;
        req.headers['content-length'] = String(resigned.bytes.length);
        for (const [name, value] of Object.entries(resigned.headers)) req.headers[name.toLowerCase()] = value;
      }
    }
    next();
  };
  const verifier = new Verifier({
    provider: PROVIDER,
    providerBaseUrl: options.target,
    ...(options.broker ? {} : { pactUrls: options.pactUrls }),
    ...(options.broker
      ? {
          pactBrokerUrl: options.broker.url,
          // The merchant's pacts on its main branch and those deployed or released.
          consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }],
          ...(options.broker.token ? { pactBrokerToken: options.broker.token } : {}),
          publishVerificationResult: Boolean(options.broker.publish),
          ...(options.broker.providerVersion ? { providerVersion: options.broker.providerVersion } : {}),
          ...(options.broker.providerBranch ? { providerVersionBranch: options.broker.providerBranch } : {}),
        }
      : {}),
    stateHandlers: stateHandlers as never,
    requestFilter: requestFilter as never,
    logLevel: options.logLevel ?? 'error',
  });
  try {
    const raw = await verifier.verifyProvider();
    return { ok: true, mismatches: mismatchesOf(raw), raw };
  } catch (error) {
    const raw = (error as Error).message;
    const mismatches = mismatchesOf(raw);
    if (!mismatches.length && !/^\s*\{/.test(raw)) throw error;
    return { ok: false, mismatches, raw };
  }
}
