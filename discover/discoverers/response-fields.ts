/**
 * `responseFields`: how the gateway answers with the fields the document lists, decided offline over every answer of
 * the run in which the operation did its work (no request is sent).
 * - `omitted`: a listed field no such answer held. A field some answers hold and others lack is not omitted (a run
 *   reports each answer lacking it). The walk is the shape check's own (core/spec/listed-fields.ts), so what the
 *   draft declares omitted is exactly what that check would otherwise report. Stated only when every operation
 *   answering fields did its work at least once: an operation never seen working could omit anything.
 * - `echoNormalised`: an echoed field (an operation echoing its request, `x-pagi-echo`) that came back otherwise than
 *   sent, with the one normalisation of the format that explains every such echo of it; stated (empty: strict) only
 *   when each difference seen has exactly one explanation, over the same pairing of leaves as the echo check (a
 *   request repeating an idempotency key left out: it is answered with the first request's result).
 */
import { sentBody } from '../../core/codecs/sent-body.js';
import type { Exchange, OperationKey } from '../../core/model.js';
import {
  echoExcepted,
  NORMALISATIONS,
  type Normalisation,
  pairedLeaves,
  sameNormalised,
} from '../../core/spec/echo.js';
import { absentListedFields } from '../../core/spec/listed-fields.js';
import { operationSet } from '../../core/spec/operations.js';
import { answerOf, didWork } from '../answers.js';
import type { Discoverer } from '../context.js';
import type { Session } from '../session.js';

type Body = Record<string, unknown>;
/** An answer of the run in which its operation did its work, with the body sent. */
type Working = { operation: OperationKey; exchange: Exchange; body: Body; sent: Body };

/** The answers of the run in which an operation did its work, with the body sent. */
function workingAnswers(s: Session): Working[] {
  const out: Working[] = [];
  for (const { operation, exchange } of s.answers) {
    const a = answerOf(exchange);
    if (a?.body && didWork(s.spec, s.work, operation, a))
      out.push({ operation, exchange, body: a.body, sent: sentBody(exchange) });
  }
  return out;
}

/** Per operation, the listed fields no working answer held (`omittedKey` paths), and how many answers were read. */
function neverAnswered(
  s: Session,
  working: readonly Working[],
): Map<OperationKey, { keys: string[]; answers: number }> {
  const out = new Map<OperationKey, { keys: string[]; answers: number }>();
  const tokenRequestValue = s.work.payments.token.requestValue;
  for (const { operation, body, sent } of working) {
    const absent = new Set(
      absentListedFields(s.spec, operation, body, { request: sent, tokenRequestValue }).map((f) => f.key),
    );
    const seen = out.get(operation);
    if (!seen) out.set(operation, { keys: [...absent], answers: 1 });
    else {
      seen.keys = seen.keys.filter((k) => absent.has(k));
      seen.answers++;
    }
  }
  return out;
}

function omitted(s: Session, working: readonly Working[]): void {
  const d = s.draft;
  const seen = neverAnswered(s, working);
  const ops = operationSet(s.spec, 'fieldResponse');
  const value: Partial<Record<OperationKey, string[]>> = {};
  for (const op of ops) {
    const keys = seen.get(op)?.keys ?? [];
    if (keys.length) value[op] = [...keys].sort();
  }
  const evidence = ops
    .filter((op) => seen.has(op))
    .map((op) => `${op} ${value[op]?.join(', ') ?? 'none'} (${seen.get(op)!.answers} answers)`)
    .join('; ');
  const unseen = ops.filter((op) => !seen.has(op));
  if (unseen.length)
    d.partial(
      'responseFields.omitted',
      `${unseen.join(', ')} never did ${unseen.length === 1 ? 'its' : 'their'} work: which listed fields ${unseen.length === 1 ? 'its answer leaves' : 'their answers leave'} out no probe saw`,
      value,
      evidence,
    );
  else d.set('responseFields.omitted', value, `the listed fields no working answer held: ${evidence}`);
}

/** A pointer with its array indexes written `*`, as `echoNormalised[].field` names a field. */
function fieldPattern(pointer: string): string {
  return pointer.replace(/\/[0-9]+(?=\/|$)/g, '/*');
}

function echoes(s: Session, working: readonly Working[]): void {
  const d = s.draft;
  const echoing = operationSet(s.spec, 'fieldResponse').filter((op) => s.spec.operations.get(op)?.echoDeep);
  if (!echoing.length) return;
  // A request repeating an idempotency key is answered with the first request's result: only first uses echo.
  const key = s.work.payout.idempotencyKey;
  const used = new Set<unknown>();
  const answers = working.filter((a) => {
    if (!echoing.includes(a.operation)) return false;
    const k = a.sent[key];
    if (k === undefined) return true;
    if (used.has(k)) return false;
    used.add(k);
    return true;
  });
  if (!answers.length) {
    d.unknown('responseFields.echoNormalised', `${echoing.join(', ')} never did its work: no echo was seen`);
    return;
  }
  // Per field: the normalisations explaining every differing echo of it; an echo none explains, kept as evidence.
  const explained = new Map<string, Normalisation[]>();
  const unexplained: string[] = [];
  let leaves = 0;
  for (const { operation, body, sent, exchange } of answers) {
    const except = s.spec.operations.get(operation)!.echoDeep!.except;
    for (const { pointer, value, other } of pairedLeaves(sent, body)) {
      if (echoExcepted(except, pointer)) continue;
      leaves++;
      if (other === value) continue;
      const field = fieldPattern(pointer);
      const fits = NORMALISATIONS.filter((n) => sameNormalised(n, value, other));
      const kept = (explained.get(field) ?? fits).filter((n) => fits.includes(n));
      explained.set(field, kept);
      if (!kept.length || kept.length > 1)
        unexplained.push(
          `${pointer} sent ${JSON.stringify(value)}, echoed ${JSON.stringify(other)} (${kept.length ? `as ${kept.join(' or ')}` : 'no normalisation'}): ${s.evidence(exchange)}`,
        );
    }
  }
  const rules = [...explained]
    .filter(([, fits]) => fits.length === 1)
    .map(([field, [as]]) => ({ field, as: as! }))
    .sort((a, b) => a.field.localeCompare(b.field));
  const what = `${answers.length} answer(s) of ${[...new Set(answers.map((a) => a.operation))].join(', ')}, ${leaves} echoed values`;
  if (unexplained.length)
    d.partial(
      'responseFields.echoNormalised',
      `an echo no single normalisation of the format explains: ${unexplained[0]}`,
      rules,
      what,
    );
  else
    d.set(
      'responseFields.echoNormalised',
      rules,
      rules.length
        ? `${what}: ${rules.map((r) => `${r.field} ${r.as}`).join(', ')}, the rest as sent`
        : `${what}, each as sent`,
    );
}

async function run(s: Session): Promise<void> {
  const working = workingAnswers(s);
  omitted(s, working);
  echoes(s, working);
}

/** `responseFields.omitted` and `responseFields.echoNormalised`, from every working answer of the run. */
export const responseFieldsDiscoverer: Discoverer = {
  id: 'responseFields',
  decides: ['responseFields'],
  after: ['response', 'catalogue'],
  run,
};
