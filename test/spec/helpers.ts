import path from 'node:path';
import { schemaIdOfFileRef, type SpecModel } from '../../core/spec/load.js';
import { exampleValue } from '../support/examples.js';

/** Every `{ $ref }` of an OpenAPI media `schema`, rewritten to schema `$id`s so ajv can compile it. */
export function mediaSchema(spec: SpecModel, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => mediaSchema(spec, n));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'xml') continue; // OpenAPI keyword, not JSON Schema
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
      out.$ref = schemaIdOfFileRef(spec.openapi.components.schemas[v.slice('#/components/schemas/'.length)].$ref);
    } else out[k] = mediaSchema(spec, v);
  }
  return out;
}

/** Every media example of the spec: operation, request/response, media type, example name and value. */
export function specExamples(spec: SpecModel) {
  const out: { where: string; mediaType: string; schema: unknown; value: unknown }[] = [];
  for (const [p, item] of Object.entries<any>(spec.openapi.paths)) {
    const op = item.post;
    const bodies: [string, any][] = [['request', op.requestBody?.content ?? {}]];
    for (const [status, r] of Object.entries<any>(op.responses)) bodies.push([`response ${status}`, r.content ?? {}]);
    for (const [kind, content] of bodies) {
      for (const [mediaType, media] of Object.entries<any>(content)) {
        for (const [name, ex] of Object.entries<any>(media.examples ?? {})) {
          out.push({
            where: `${p} ${kind} ${mediaType} ${name}`,
            mediaType,
            schema: mediaSchema(spec, media.schema),
            value: exampleValue(path.posix.basename(ex.$ref)),
          });
        }
      }
    }
  }
  return out;
}
