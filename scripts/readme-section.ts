/**
 * Generated sections of the README and the pages under docs/: the text between a `<!-- NAME:START … -->` marker and
 * its `<!-- NAME:END -->` in the file the section lives in. The readme-* scripts make a section's text; this module
 * puts it in place or tells whether it is current.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KIT_ROOT } from '../core/spec/paths.js';

/** The markers of one section (`name` is the marker's word, e.g. CHECKS) and the file that holds it. */
export interface SectionMarkers {
  name: string;
  start: string;
  end: string;
  /** The file holding the section, relative to the kit's root (e.g. `docs/reports.md`). */
  file: string;
}

/** `text` of the section's file with the section between `markers` replaced by `section`. */
function withSection(text: string, markers: SectionMarkers, section: string): string {
  const at = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (at < 0 || end < 0) throw new Error(`${markers.file} lacks the ${markers.name} markers`);
  return `${text.slice(0, at + markers.start.length)}\n${section}\n${text.slice(end)}`;
}

/** Whether the section's file holds `text` as the section. */
export function sectionIsCurrent(markers: SectionMarkers, text: string): boolean {
  const current = fs.readFileSync(path.join(KIT_ROOT, markers.file), 'utf8');
  return withSection(current, markers, text) === current;
}

/** A script's command line: with `--check`, exit 1 with `staleMessage` when the section is stale; else rewrite it. */
export function sectionCommand(markers: SectionMarkers, text: string, staleMessage: string): void {
  const file = path.join(KIT_ROOT, markers.file);
  if (process.argv.includes('--check')) {
    if (!sectionIsCurrent(markers, text)) {
      console.error(staleMessage);
      process.exit(1);
    }
  } else fs.writeFileSync(file, withSection(fs.readFileSync(file, 'utf8'), markers, text));
}
