/**
 * The README's layer table, generated from scripts/layers.ts (`npm run readme:layers`; `--check` exits 1 when stale).
 * test/architecture.test.ts checks it is current.
 */
import { pathToFileURL } from 'node:url';
import { LAYERS } from './layers.js';
import { sectionCommand, type SectionMarkers } from './readme-section.js';

export const LAYER_MARKERS: SectionMarkers = {
  name: 'LAYERS',
  start: '<!-- LAYERS:START (generated from scripts/layers.ts by npm run readme:layers) -->',
  end: '<!-- LAYERS:END -->',
  file: 'README.md',
};

/** The table: one row per layer, from the top (the layers importing most) down to core. */
export function layersTable(): string {
  const rows = [...LAYERS]
    .reverse()
    .map((l) => `| \`${l.folder}/\` | ${l.what} | ${l.mayImport.map((n) => `\`${n}\``).join(' ') || 'nothing'} |`);
  return ['| layer (folder) | what it holds | may import |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  sectionCommand(LAYER_MARKERS, layersTable(), 'README.md layer table is stale: run npm run readme:layers');
