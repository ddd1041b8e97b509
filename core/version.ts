/** The kit's version: `version` of its package.json, read in this one place (results, reports and the CLI show it). */
import fs from 'node:fs';
import path from 'node:path';
import { KIT_ROOT } from './spec/paths.js';

/** `version` of the kit's package.json (`0.2.0`). */
export const KIT_VERSION: string = JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'package.json'), 'utf8')).version;
