/** The spec's examples of an operation (`requestBody` and `200` response `examples`), read from their files. */
import path from 'node:path';
import { readYamlFile } from '../yaml.js';
import type { OperationModel, SpecModel } from './load.js';

const cache = new WeakMap<SpecModel, Map<string, Record<string, unknown>[]>>();

/** Whether an example body belongs to an operation's variant (`when.present` / `when.absent` of a shared path). */
function ofVariant(value: Record<string, unknown>, when: OperationModel['when']): boolean {
  if (when?.present && !(when.present in value)) return false;
  if (when?.absent && when.absent in value) return false;
  return true;
}

/**
 * The object examples of an operation's request or 200 response, in spec order (every media type), those of other
 * variants of its path left out. A response example of a variant is told by its echo of the variant's selecting
 * field where it has one (an APM answer carries no `payment_method`): such examples are kept for every variant.
 */
export function operationExamples(
  spec: SpecModel,
  op: OperationModel,
  side: 'request' | 'response',
): Record<string, unknown>[] {
  let byKey = cache.get(spec);
  if (!byKey) cache.set(spec, (byKey = new Map()));
  const key = `${op.key} ${side}`;
  const hit = byKey.get(key);
  if (hit) return hit;
  const post = spec.openapi.paths[op.path]?.post;
  const content: Record<string, any> =
    (side === 'request' ? post?.requestBody?.content : post?.responses?.['200']?.content) ?? {};
  const out: Record<string, unknown>[] = [];
  for (const media of Object.values(content))
    for (const example of Object.values<any>(media.examples ?? {})) {
      const value = example.$ref ? readYamlFile(path.join(spec.root, 'spec', example.$ref)).value : example.value;
      if (
        value &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        (side === 'response' || ofVariant(value, op.when))
      )
        out.push(value);
    }
  byKey.set(key, out);
  return out;
}
