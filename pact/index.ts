/**
 * Consumer helpers for a merchant's own Pact tests (`import { interactions, matchers } from 'pagi-conformance/pact'`):
 * the interactions of the interface generated from the spec, ready for `PactV4` (`given`, `uponReceiving`,
 * `withRequest`, `willRespondWith`), and matchers derived from the schemas in `@pact-foundation/pact`'s V3 form.
 */
import type { OperationKey } from '../core/model.js';
import { kitSpec, type SpecModel } from '../core/spec/load.js';
import { interactions as generated, type InteractionOptions } from './interactions.js';
import { buildTemplate, toPactJs } from './matchers.js';
import type { PactInteraction } from './pact-file.js';
import { flatten } from './schema.js';
import { UsageError } from '../core/types/errors.js';
import { didYouMean } from '../core/config/suggest.js';

export type { PactFile, PactInteraction, Matcher, MatcherList } from './pact-file.js';
export { generatePact, CONSUMER, PROVIDER } from './interactions.js';
export { checkPact, findingsOf } from './check.js';
export { STATES } from './states.js';

/** One interaction of the interface, for a merchant's PactV4 test. */
export interface ConsumerInteraction {
  /** `<operation>-<status>`, unique. */
  key: string;
  operation: OperationKey;
  description: string;
  /** Provider state the gateway needs, with the names of the values it injects. */
  providerState?: string;
  request: {
    method: string;
    path: string;
    contentType: string;
    /** The example body as generated (signed with the sandbox's example secret); form bodies as form text. */
    body: unknown;
    /** The body as `@pact-foundation/pact` V3 matchers (types and format regexes of every field). */
    matchers: unknown;
  };
  response: {
    status: number;
    contentType?: string;
    /** JSON responses: what the interface guarantees, as V3 matchers (for `jsonBody`). */
    matchers?: unknown;
    /** XML and HTML responses: the example text. */
    text?: string;
  };
  /** The Pact V4 interaction this is made from. */
  pact: PactInteraction;
}

function operationOf(interaction: PactInteraction): OperationKey {
  return String(interaction.comments?.text?.[0] ?? '').replace(/^operation: /, '') as OperationKey;
}

/** The interactions of the interface for a profile (default `reference`). */
export function interactions(options: InteractionOptions = {}): ConsumerInteraction[] {
  const spec = options.spec ?? kitSpec();
  return generated(options).map((pact) => {
    const operation = operationOf(pact);
    const requestContent = pact.request.body!.content;
    const requestObject =
      typeof requestContent === 'string' ? Object.fromEntries(new URLSearchParams(requestContent)) : requestContent;
    const op = spec.operations.get(operation)!;
    const responseBody = pact.response.body;
    const json = responseBody?.contentType === 'application/json';
    return {
      key: pact.key!,
      operation,
      description: pact.description,
      ...(pact.providerStates?.[0] ? { providerState: pact.providerStates[0].name } : {}),
      request: {
        method: pact.request.method,
        path: pact.request.path,
        contentType: pact.request.headers!['Content-Type']![0]!,
        body: requestContent,
        matchers: toPactJs(buildTemplate(spec, flatten(spec, op.requestSchemaId), requestObject, { fields: 'all' })),
      },
      response: {
        status: pact.response.status,
        ...(pact.response.headers ? { contentType: pact.response.headers['Content-Type']![0] } : {}),
        ...(json ? { matchers: responseMatchers(spec, operation, pact) } : {}),
        ...(responseBody && !json ? { text: String(responseBody.content) } : {}),
      },
      pact,
    };
  });
}

/** The guaranteed JSON response of a generated interaction as V3 matchers (its array minima kept). */
function responseMatchers(spec: SpecModel, operation: OperationKey, pact: PactInteraction): unknown {
  if (pact.response.body?.contentType !== 'application/json')
    throw new UsageError(
      `The operation ${operation} has no JSON response to match; its response is XML or HTML (use its text).`,
    );
  const op = spec.operations.get(operation)!;
  const rules = pact.response.matchingRules?.body ?? {};
  const template = buildTemplate(spec, flatten(spec, op.responseSchemaId), pact.response.body.content, {
    fields: 'required',
    arrayMin: (pointer) => {
      const list = rules[`$${pointer.replace(/\//g, '.')}`];
      const min = (list?.matchers[0] as { min?: number } | undefined)?.min;
      return min === undefined ? undefined : { min };
    },
  });
  return toPactJs(template);
}

/** An operation no interaction of the interface answers with 200, with the closest one that does. */
function noInteraction(operation: string, options: InteractionOptions): UsageError {
  const operations = [...(options.spec ?? kitSpec()).operations.keys()];
  return new UsageError(
    `No interaction for the operation '${operation}'${didYouMean(operation, operations) || '.'} The operations are ${operations.join(', ')}.`,
  );
}

function formats(): Record<string, unknown> {
  const spec = kitSpec();
  const common = spec.schemas.get('https://pagi-conformance.dev/schemas/common.schema.json')!;
  return common.$defs as Record<string, unknown>;
}

/** Matchers derived from the spec's schemas, in `@pact-foundation/pact`'s V3 form. */
export const matchers = {
  /** A matcher for a format of common.schema.json (`amount`, `currency`, `compactTimestamp`, …), with an example. */
  format(name: string, example?: unknown): unknown {
    const spec = kitSpec();
    if (!(name in formats()))
      throw new UsageError(
        `No format '${name}' in schemas/common.schema.json${didYouMean(name, Object.keys(formats())) || '.'} matchers.formatNames() lists them.`,
      );
    const flat = flatten(spec, `https://pagi-conformance.dev/schemas/common.schema.json#/$defs/${name}`);
    return toPactJs(buildTemplate(spec, flat, example, { fields: 'all' }));
  },
  /** The names of the formats. */
  formatNames(): string[] {
    return Object.keys(formats());
  },
  /** What the interface guarantees in the 200 response of an operation (required fields, their forms), as V3 matchers. */
  response(operation: OperationKey, options: InteractionOptions = {}): unknown {
    const pact = generated(options).find((i) => i.key === `${operation}-200`);
    if (!pact) throw noInteraction(operation, options);
    return responseMatchers(options.spec ?? kitSpec(), operation, pact);
  },
  /** An operation's request body as V3 matchers: every field of the spec's example, by type and format. */
  request(operation: OperationKey, options: InteractionOptions = {}): unknown {
    const found = interactions(options).find((i) => i.key === `${operation}-200`);
    if (!found) throw noInteraction(operation, options);
    return found.request.matchers;
  },
  /** The plain example a matcher tree stands for. */
  example(tree: unknown): unknown {
    return exampleOfPactJs(tree);
  },
};

function exampleOfPactJs(tree: unknown): unknown {
  if (Array.isArray(tree)) return tree.map(exampleOfPactJs);
  if (tree && typeof tree === 'object') {
    const t = tree as Record<string, unknown>;
    if ('pact:matcher:type' in t) return exampleOfPactJs(t.value);
    return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, exampleOfPactJs(v)]));
  }
  return tree;
}
