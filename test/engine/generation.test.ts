import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planTests } from '../../engine/plan.js';
import { kitSpec, loadSpec } from '../../core/spec/load.js';
import { covers } from '../../core/spec/operations.js';
import { CHECKS } from '../../suites/registry.js';
import { runCli } from '../support/cli.js';
import { editJson, specCopy } from '../support/temp.js';

/** Copy spec/ and schemas/ into a temporary root and edit two schema files there. */
function alteredCopy(): string {
  const root = specCopy();
  const edit = (file: string, change: (schema: any) => void) => editJson(root, path.join('schemas', file), change);
  const kit = kitSpec();
  const capture = kit.operations.get('capture')!;
  edit(path.basename(capture.requestSchemaId), (schema) => {
    const limit = schema.properties[capture.batch!.orders].allOf.find(
      (s: any) => s.maxItems === capture.batch!.maxItems,
    );
    limit.maxItems = capture.batch!.maxItems - 1;
  });
  // The copy's query envelope requires a field no gateway returns.
  const query = kit.operations.get('retrievalTrans')!;
  edit(path.basename(query.responseSchemaId), (schema) => {
    const envelope = schema.allOf.find((s: any) => s.required.includes('orders_list'));
    envelope.required.push('pagi_generation_mark');
    envelope.properties.pagi_generation_mark = true;
  });
  return root;
}

describe('generation from the spec', () => {
  const root = alteredCopy();
  const kit = kitSpec();
  const copy = loadSpec(root);

  it('changes the generated tests', () => {
    expect(copy.operations.get('capture')!.batch!.maxItems).toBe(kit.operations.get('capture')!.batch!.maxItems - 1);
    const titles = (spec: typeof kit) =>
      planTests(spec, CHECKS, { only: [], skip: [] }).map((t) => `${t.operation} > ${t.title}`);
    const before = titles(kit);
    const after = titles(copy);
    const changed = after.filter((t) => !before.includes(t));
    expect(changed.length).toBeGreaterThan(0);
    expect(
      changed.filter(
        (t) =>
          !(t.startsWith('capture > ') && t.endsWith(`[limit ${copy.operations.get('capture')!.batch!.maxItems}]`)),
      ),
    ).toEqual([]);
    const queryResponse = kit.operations.get('retrievalTrans')!.responseSchemaId;
    expect(
      copy.validate(queryResponse, {
        merchant_id: 'M',
        account_id: 'A',
        return_status: '1',
        return_message: 'OK',
        orders_list: [],
      }),
    ).not.toEqual([]);
    expect(
      kit.validate(queryResponse, {
        merchant_id: 'M',
        account_id: 'A',
        return_status: '1',
        return_message: 'OK',
        orders_list: [],
      }),
    ).toEqual([]);
  });

  it('generated from the altered copy, the tests judge by it, and the embedded gateway serves it', {
    timeout: 240_000,
  }, async () => {
    const selected = CHECKS.filter(
      (c) =>
        (c.family === 'limits' && covers(kit, c.operations, 'capture')) ||
        (c.family === 'shape' && covers(kit, c.operations, 'retrievalTrans')),
    );
    const only = selected
      .flatMap((c) => (c.family === 'limits' ? [`capture/${c.id}`] : [`retrievalTrans/${c.id}`]))
      .join(',');
    const [original, altered] = await Promise.all([
      runCli(['--only', only, '--reporter', 'json']),
      runCli(['--only', only, '--reporter', 'json', '--spec-root', root]),
    ]);
    expect(original.stderr).toBe('');
    expect(original.results().checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(original.code).toBe(0); // every selected check passed: a partial run, not a certification
    expect(original.results().partial?.mustNotSelected).toBeGreaterThan(0);
    expect(altered.code).toBe(1);
    const checks = altered.results().checks;
    const failed = checks.filter((c) => c.status === 'failed');
    // The envelope field the copy requires is one no gateway returns: the shape check generated from it fails.
    expect(failed).toContainEqual(expect.objectContaining({ operation: 'retrievalTrans', family: 'shape' }));
    // The embedded gateway serves the copy (--spec-root): it takes the copy's lower capture limit, as the tests expect.
    const limits = checks.filter((c) => c.operation === 'capture' && c.family === 'limits');
    expect(limits.length).toBeGreaterThan(0);
    expect(limits.filter((c) => c.status === 'failed')).toEqual([]);
    expect(altered.results().metadata.spec.root).toBe(root);
  });
});
