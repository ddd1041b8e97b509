/**
 * A merchant's pact interaction as the observation the pact checks read: its operation (from its path and body), its
 * request body decoded, its content types. No request is sent: the pact's expectations are what the checks judge.
 * Also the one way a pact check words a finding, and the severity of an expectation.
 */
import fs from 'node:fs';
import { decodeForm } from '../core/codecs/form.js';
import { findingProse, severityOf } from '../engine/outcome.js';
import type { Exchange, Finding, Observation, OperationKey, Severity } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import { PACT_FINDING_CODES, type PactFindingCode } from './codes.js';
import { bodyText, headerValue, type PactBody, type PactFile, type PactInteraction } from './pact-file.js';
import { operationOf } from './verify.js';
import { PactFileError } from '../core/types/errors.js';

/** Id of the pact checks' observation source: a merchant's pact file, read, never sent. */
export const PACT_PROBE_ID = 'pact';

/** Read a pact file (V3 or V4 JSON); throws with one sentence when it cannot be used. */
export function readPactFile(file: string): PactFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new PactFileError(
      `Cannot read the pact ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check the path.`,
    );
  }
  let value: any;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PactFileError(
      `${file} is not JSON (${(e as Error).message}); a pact file is the JSON a Pact test writes (V3 or V4).`,
    );
  }
  if (!value || !Array.isArray(value.interactions))
    throw new PactFileError(
      `${file} is not a pact: it has no interactions list; give the JSON file a Pact test writes (V3 or V4).`,
    );
  return value as PactFile;
}

/** A body as a JSON value (V3 bodies are the value itself, V4 bodies an object with `content`). */
export function normaliseBody(body: unknown, contentType: string | undefined): PactBody | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'object' && !Array.isArray(body) && 'content' in (body as object)) return body as PactBody;
  return {
    content: body,
    contentType: contentType ?? (typeof body === 'string' ? 'text/plain' : 'application/json'),
    encoded: false,
  };
}

/** One interaction of a pact, read: what every pact check needs of it. */
export interface PactView {
  interaction: PactInteraction;
  /** Position in the pact's `interactions` (findings point at `/interactions/<index>/...`). */
  index: number;
  /** `/interactions/<index>`. */
  where: string;
  /** The request path without its query. */
  path: string;
  /** The request's declared content type (header, or the V4 body's). */
  contentType?: string;
  /** The request body as fields (JSON object or decoded form); `{}` when it has none or it does not parse. */
  body: Record<string, unknown>;
  /** The operation the request is of; undefined when its path is not in the interface. */
  operation?: OperationKey;
}

declare module '../core/model.js' {
  interface ObservationFacts {
    /** The pact interaction a pact check reads (`pactObservation`), its operation known. */
    pact?: PactView & { operation: OperationKey };
  }
}

/** Read one interaction of a pact against the spec. */
export function viewInteraction(spec: SpecModel, interaction: PactInteraction, index: number): PactView {
  const request = interaction.request ?? ({} as PactInteraction['request']);
  const path = (request.path ?? '').split('?')[0]!;
  const contentType =
    headerValue(request.headers as Record<string, unknown>, 'content-type') ??
    (request.body as PactBody | undefined)?.contentType;
  const reqBody = normaliseBody(request.body, contentType);
  const text = bodyText(reqBody);
  let body: Record<string, unknown> = {};
  if (reqBody && typeof reqBody.content === 'object' && reqBody.content && reqBody.encoded === false)
    body = reqBody.content as Record<string, unknown>;
  else if (text !== undefined) {
    try {
      body = text.trimStart().startsWith('{') ? JSON.parse(text) : decodeForm(text);
    } catch {
      body = {};
    }
  }
  const operation = operationOf(spec, path, body);
  return {
    interaction,
    index,
    where: `/interactions/${index}`,
    path,
    ...(contentType !== undefined ? { contentType } : {}),
    body,
    ...(operation ? { operation } : {}),
  };
}

/**
 * The observation of one interaction on its operation: `main` stands for the interaction (its id is the
 * interaction's description; nothing was sent, so it has no response and no curl line), `facts.pact` holds the view.
 */
export function pactObservation(view: PactView & { operation: OperationKey }): Observation {
  const request = view.interaction.request ?? ({} as PactInteraction['request']);
  const main: Exchange = {
    id: view.interaction.description,
    operation: view.operation,
    request: {
      method: String(request.method ?? ''),
      url: view.path,
      headers: {},
      body: view.body,
      bodyText: '',
      encoding: 'raw',
    },
    startedAt: new Date(0).toISOString(),
    durationMs: 0,
    evidence: { request: { method: String(request.method ?? ''), url: view.path, headers: {}, body: '' }, curl: '' },
  };
  return { probeId: PACT_PROBE_ID, operation: view.operation, main, steps: {}, facts: { pact: view } };
}

/** The pact view of an observation a pact check reads (a broken kit when it holds none). */
export function viewOf(observation: Observation): PactView & { operation: OperationKey } {
  const view = observation.facts.pact;
  if (!view?.operation)
    throw new Error(`a pact check read observation ${observation.probeId}, which holds no pact interaction`);
  return view;
}

/** What a pact finding expected and received, as data; its message is derived from them. */
export interface Sides {
  expected: string;
  received: string | null;
}

/**
 * Severity of a pact finding: the level of the requirements it names; an expectation resting on something the
 * document leaves unshown (an `unspecified` requirement, or none) breaks no stated rule and is never a `must`.
 */
export function expectationSeverity(spec: SpecModel, requirementIds: readonly string[]): Severity {
  const known = requirementIds.filter((id) => spec.requirements.has(id));
  if (!known.length || known.some((id) => spec.requirements.get(id)!.level === 'unspecified')) return 'expected';
  return severityOf(spec, known);
}

/** Adds one finding of a pact check: its code, requirement ids, the two sides, where, and a severity when not derived. */
export type AddFinding = (
  code: PactFindingCode,
  requirementIds: string[],
  sides: Sides,
  pointer: string,
  severity?: Severity,
) => void;

/** A finding collector of one pact check on one interaction. */
export function collector(spec: SpecModel, checkId: string, view: PactView, findings: Finding[]): AddFinding {
  return (code, requirementIds, sides, pointer, severity) =>
    findings.push({
      checkId,
      requirementIds,
      code,
      severity: severity ?? expectationSeverity(spec, requirementIds),
      title: PACT_FINDING_CODES[code],
      message: sides.received === null ? `expected ${sides.expected}` : findingProse(sides.expected, sides.received),
      ...sides,
      location: { operation: view.operation ?? 'external', pointer, exchangeId: view.interaction.description },
    });
}
