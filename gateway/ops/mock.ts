/**
 * An operation of the spec the gateway has no stateful handler for (one a vendor added to its copy of the spec),
 * answered as a schema-driven mock. The pipeline has already refused what the profile refuses (unreadable body,
 * unknown merchant, wrong signature, a request its schema rejects) in the profile's form; the mock answers the
 * spec's response example valid against the operation's response schema, with the request's values in the fields
 * the operation's `x-pagi-*` entries say the answer echoes, signed as the profile signs that operation's answers.
 * Where the entries say the request's items name transactions (`x-pagi-batch`), each item is judged by what the
 * gateway holds, as a real batch judges it: an unknown transaction (or any other failure of the profile's
 * `batch.checkOrder`, the state check of the transition `x-pagi-batch.transition` names included) gets the profile's
 * per-item failure, and the envelope the profile gives a batch with a failed item; a batch over its limit is cut to
 * the limit unless the profile refuses it whole (the pipeline did). It keeps no state: nothing it answers changes
 * what another operation shows.
 */
import { operationExamples } from '../../core/spec/examples.js';
import { batchLimit, refusesOverLimit, type Gateway, type GatewayRequest, type OperationHandler } from '../context.js';
import { signResponse } from '../errors.js';
import { jsonReply, type Reply } from '../reply.js';
import { heldItemFailure } from './batch.js';
import { SpecError } from '../../core/types/errors.js';

/** The first response example valid against the operation's response schema (its signature left out). */
function template(gw: Gateway, req: GatewayRequest): Record<string, unknown> {
  const model = req.op.model;
  const examples = operationExamples(gw.spec, model, 'response');
  const valid = examples.find((e) => gw.spec.validate(model.responseSchemaId, e).length === 0) ?? examples[0];
  if (!valid) throw new SpecError(`gateway: ${model.key} has no response example to answer from`);
  const { encryption_data: _, ...body } = structuredClone(valid);
  return body;
}

/** The example with the request's values in the echoed fields (`echo`, `echoItems`, `echoDeep` of the variant). */
function echoed(req: GatewayRequest, body: Record<string, unknown>): Record<string, unknown> {
  const model = req.op.model;
  if (model.echoDeep) {
    const { encryption_data: _, ...request } = structuredClone(req.body);
    Object.assign(body, request);
  }
  for (const rule of model.echo)
    for (const field of rule.fields) if (req.body[field] !== undefined) body[field] = req.body[field];
  const items = model.echoItems;
  if (items) {
    const sent = req.body[items.orders];
    const example = Array.isArray(body[items.orders]) ? (body[items.orders] as Record<string, unknown>[]) : [];
    if (Array.isArray(sent))
      body[items.orders] = sent.map((item: Record<string, unknown>, i) => {
        const result = structuredClone(example[i % Math.max(example.length, 1)] ?? {});
        for (const f of [...items.key, ...items.fields]) if (item?.[f] !== undefined) result[f] = item[f];
        return result;
      });
  }
  return body;
}

/** A batch's results judged by what the gateway holds (see the module's comment); the envelope follows the first failure. */
function held(gw: Gateway, req: GatewayRequest, body: Record<string, unknown>): Record<string, unknown> {
  const batch = req.op.model.batch;
  const sent = batch && req.body[batch.orders];
  if (!batch || !Array.isArray(sent)) return body;
  const accepted = refusesOverLimit(gw) ? sent : sent.slice(0, batchLimit(gw, req.op.model));
  const example = Array.isArray(body[batch.orders]) ? (body[batch.orders] as Record<string, unknown>[]) : [];
  let failed: Record<string, unknown> | undefined;
  body[batch.orders] = accepted.map((item, i) => {
    const result = structuredClone(example[i] ?? {});
    const failure = heldItemFailure(gw, req, item);
    if (failure) {
      Object.assign(result, failure);
      failed ??= failure;
    }
    return result;
  });
  const rs = gw.profile.statusValues.return_status;
  if (failed && gw.profile.batch.envelopeOnItemFailure === 'failure' && 'return_status' in body)
    Object.assign(body, { return_status: rs.failure, return_message: failed[batch.message] });
  return body;
}

/** The mock of every operation the gateway has no handler for. */
export const mockOperation: OperationHandler = {
  run(req: GatewayRequest, gw: Gateway): Reply {
    const body = held(gw, req, echoed(req, template(gw, req)));
    const signed = signResponse(gw, req.op.model.key, body, req.account.secret);
    const root = req.op.xmlRoot;
    return root ? { kind: 'xml', status: 200, root, body: signed } : jsonReply(signed);
  },
};
