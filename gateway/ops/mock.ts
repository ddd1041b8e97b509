/**
 * An operation of the spec the gateway has no stateful handler for (one a vendor added to its copy of the spec),
 * answered as a schema-driven mock. The pipeline has already refused what the profile refuses (unreadable body,
 * unknown merchant, wrong signature, a request its schema rejects) in the profile's form; the mock answers the
 * spec's response example valid against the operation's response schema, with the request's values in the fields
 * the operation's `x-pagi-*` entries say the answer echoes, signed as the profile signs that operation's answers.
 * It keeps no state: nothing it answers changes what another operation shows.
 */
import { operationExamples } from '../../core/spec/examples.js';
import type { Gateway, GatewayRequest, OperationHandler } from '../context.js';
import { signResponse } from '../errors.js';
import { jsonReply, type Reply } from '../reply.js';
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

/** The mock of every operation the gateway has no handler for. */
export const mockOperation: OperationHandler = {
  run(req: GatewayRequest, gw: Gateway): Reply {
    const body = echoed(req, template(gw, req));
    const signed = signResponse(gw, req.op.model.key, body, req.account.secret);
    const root = req.op.xmlRoot;
    return root ? { kind: 'xml', status: 200, root, body: signed } : jsonReply(signed);
  },
};
