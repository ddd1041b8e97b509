/**
 * Derives each operation variant's `requirements` list in spec/openapi.yaml from the catalogue's `operations`
 * (spec/requirements.yaml), so the mapping is written in one place. `--check` exits 1 when the spec is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument, parse } from 'yaml';
import { KIT_ROOT } from '../core/spec/paths.js';

export function syncedSpecText(root = KIT_ROOT): { current: string; synced: string } {
  const specFile = path.join(root, 'spec', 'openapi.yaml');
  const current = fs.readFileSync(specFile, 'utf8');
  const catalogue = parse(fs.readFileSync(path.join(root, 'spec', 'requirements.yaml'), 'utf8'));
  const doc = parseDocument(current);
  const paths = doc.get('paths') as any;
  for (const pair of paths.items) {
    const variants = pair.value.getIn(['post', 'x-pagi-variants']);
    for (const variant of variants.items) {
      const key = variant.get('key');
      const ids = (catalogue.requirements as { id: string; operations: string[] }[])
        .filter((r) => r.operations.includes(key))
        .map((r) => r.id);
      const node = doc.createNode(ids);
      node.flow = true;
      variant.set('requirements', node);
    }
  }
  return { current, synced: doc.toString({ lineWidth: 0, flowCollectionPadding: false }) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { current, synced } = syncedSpecText();
  if (process.argv.includes('--check')) {
    if (current !== synced) {
      console.error('spec/openapi.yaml: variant requirement lists are stale; run npm run spec:sync');
      process.exit(1);
    }
    console.log('spec/openapi.yaml: requirement lists up to date');
  } else {
    fs.writeFileSync(path.join(KIT_ROOT, 'spec', 'openapi.yaml'), synced);
    console.log('spec/openapi.yaml: requirement lists written');
  }
}
