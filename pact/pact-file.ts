/**
 * The parts of the Pact Specification V4 file format (https://github.com/pact-foundation/pact-specification,
 * version 4) the kit writes and reads: synchronous HTTP interactions with bodies, matching rules, generators and
 * provider states.
 */

/** One matcher of a matching rule. */
export type Matcher =
  | { match: 'type'; min?: number; max?: number }
  | { match: 'regex'; regex: string }
  | { match: 'number' }
  | { match: 'integer' }
  | { match: 'decimal' }
  | { match: 'equality' }
  | { match: 'include'; value: string }
  | { match: string; [key: string]: unknown };

/** Matchers at one path, combined. */
export interface MatcherList {
  combine: 'AND' | 'OR';
  matchers: Matcher[];
}

/** Matching rules by category (`body`, `header`, `path`, `query`, `status`), then by path. */
export type MatchingRules = Partial<
  Record<'body' | 'header' | 'path' | 'query' | 'status', Record<string, MatcherList>>
>;

/** A value generator (provider-state injection, UUID, ...). */
export type Generator =
  | { type: 'ProviderState'; expression: string; dataType?: 'STRING' | 'RAW' | 'INTEGER' | 'DECIMAL' }
  | { type: 'Uuid'; format?: 'simple' | 'lower-case-hyphenated' | 'upper-case-hyphenated' | 'URN' }
  | { type: string; [key: string]: unknown };

/** A body: JSON content as a value, any other content as text. */
export interface PactBody {
  content: unknown;
  contentType: string;
  encoded: false | 'base64';
}

/** A provider state with its parameters. */
export interface ProviderState {
  name: string;
  params?: Record<string, unknown>;
}

/** An HTTP request of an interaction. */
export interface PactRequest {
  method: string;
  path: string;
  headers?: Record<string, string[]>;
  body?: PactBody;
  matchingRules?: MatchingRules;
  generators?: Partial<Record<'body' | 'header' | 'path' | 'query', Record<string, Generator>>>;
}

/** An HTTP response of an interaction. */
export interface PactResponse {
  status: number;
  headers?: Record<string, string[]>;
  body?: PactBody;
  matchingRules?: MatchingRules;
}

/** A synchronous HTTP interaction. */
export interface PactInteraction {
  type: 'Synchronous/HTTP';
  key?: string;
  description: string;
  providerStates?: ProviderState[];
  request: PactRequest;
  response: PactResponse;
  comments?: { text?: string[]; testname?: string; [key: string]: unknown };
  pending?: boolean;
}

/** A Pact V4 file. */
export interface PactFile {
  consumer: { name: string };
  provider: { name: string };
  interactions: PactInteraction[];
  metadata: { pactSpecification: { version: string }; [key: string]: unknown };
}

/** The first value of a header (case-insensitive name), whether the file holds it as a list or a string. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() !== name.toLowerCase()) continue;
    if (Array.isArray(value)) return value.length ? String(value[0]) : undefined;
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

/** The text of a body: JSON content serialised, base64 content decoded, text as is. */
export function bodyText(body: PactBody | undefined): string | undefined {
  if (!body || body.content === undefined || body.content === null) return undefined;
  if (body.encoded === 'base64' && typeof body.content === 'string')
    return Buffer.from(body.content, 'base64').toString('utf8');
  return typeof body.content === 'string' ? body.content : JSON.stringify(body.content);
}
