import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Root of the installed kit (the folder holding spec/ and schemas/). */
export const KIT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEC_DIR = path.join(KIT_ROOT, 'spec');
export const SCHEMAS_DIR = path.join(KIT_ROOT, 'schemas');
/** Base of every schema `$id`. */
export const SCHEMA_BASE = 'https://pagi-conformance.dev/schemas/';
