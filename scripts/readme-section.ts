/**
 * Generated sections of README.md: the text between a `<!-- NAME:START … -->` marker and its `<!-- NAME:END -->`.
 * The readme-* scripts make a section's text; this module puts it in place or tells whether it is current.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KIT_ROOT } from '../src/spec/paths.js';

/** The README the sections live in. */
const README = path.join(KIT_ROOT, 'README.md');

/** The markers of one section (`name` is the marker's word, e.g. CHECKS). */
export interface SectionMarkers {
  name: string;
  start: string;
  end: string;
}

/** `readme` with the section between `markers` replaced by `text`. */
function withSection(readme: string, markers: SectionMarkers, text: string): string {
  const at = readme.indexOf(markers.start);
  const end = readme.indexOf(markers.end);
  if (at < 0 || end < 0) throw new Error(`README.md lacks the ${markers.name} markers`);
  return `${readme.slice(0, at + markers.start.length)}\n${text}\n${readme.slice(end)}`;
}

/** Whether README.md holds `text` as the section. */
export function sectionIsCurrent(markers: SectionMarkers, text: string): boolean {
  const readme = fs.readFileSync(README, 'utf8');
  return withSection(readme, markers, text) === readme;
}

/** A script's command line: with `--check`, exit 1 with `staleMessage` when the section is stale; else rewrite it. */
export function sectionCommand(markers: SectionMarkers, text: string, staleMessage: string): void {
  if (process.argv.includes('--check')) {
    if (!sectionIsCurrent(markers, text)) {
      console.error(staleMessage);
      process.exit(1);
    }
  } else fs.writeFileSync(README, withSection(fs.readFileSync(README, 'utf8'), markers, text));
}
