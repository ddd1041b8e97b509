/**
 * Compiled validators of a set of schema documents. Compiling the kit's schemas with Ajv costs about two seconds
 * of CPU per process and worker, so `npm run gen:validators` compiles them once into standalone code
 * (`core/spec/validators.generated.cjs`, Ajv's own standalone output, with the same options as `createAjv`).
 * A set whose digest equals the generated one's uses that code; any other set (a vendor's copy of the spec, an
 * edited schema before regeneration) is compiled by Ajv on first use, so results never depend on the cache.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from './ajv.js';
import { KIT_ROOT, SCHEMAS_DIR } from './paths.js';
import { escapeToken } from './pointer.js';
import { SpecError } from '../types/errors.js';

/** The schema documents a validator set is built from, with the digest that identifies them. */
export interface SchemaSet {
  /** Documents by `$id`. */
  documents: Map<string, Record<string, any>>;
  /** sha256 over every file name and text of the set. */
  digest: string;
}

/** Source of compiled validators for one schema set. */
export interface ValidatorSource {
  /** Validator of a schema `$id` or `$id#/pointer`; throws when there is no such schema. */
  validator(schemaId: string): ValidateFunction;
  /** Whether the validators come from the generated standalone code (false: compiled by Ajv at run time). */
  precompiled: boolean;
}

/** The gateway's configuration schema travels with every set, so one generated module serves the whole kit. */
const GATEWAY_CONFIG_SCHEMA = path.join(KIT_ROOT, 'gateway', 'config.schema.json');
export const GENERATED_VALIDATORS = path.join(KIT_ROOT, 'core', 'spec', 'validators.generated.cjs');

const SCHEMA_FILE = /\.schema\.json$/;

/** Read the `*.schema.json` files of `schemaDir` (and the gateway's config schema) as a set. */
export function readSchemaSet(
  schemaDir: string = SCHEMAS_DIR,
): SchemaSet & { files: { name: string; text: string; doc: Record<string, any> }[] } {
  const files = fs
    .readdirSync(schemaDir)
    .filter((f) => SCHEMA_FILE.test(f))
    .sort()
    .map((name) => ({ name, text: fs.readFileSync(path.join(schemaDir, name), 'utf8') }));
  files.push({ name: 'gateway/config.schema.json', text: fs.readFileSync(GATEWAY_CONFIG_SCHEMA, 'utf8') });
  const parsed = files.map((f) => ({ ...f, doc: JSON.parse(f.text) as Record<string, any> }));
  const hash = createHash('sha256');
  const documents = new Map<string, Record<string, any>>();
  for (const file of parsed) {
    hash.update(file.name).update('\0').update(file.text).update('\0');
    documents.set(file.doc.$id, file.doc);
  }
  return { files: parsed, documents, digest: hash.digest('hex') };
}

/** What the generated module exports. */
interface GeneratedModule {
  digest: string;
  /** Export name of each compiled schema id. */
  ids: Record<string, string>;
  [exportName: string]: unknown;
}

let generated: GeneratedModule | null | undefined;

function generatedModule(): GeneratedModule | null {
  if (generated === undefined) {
    try {
      generated = createRequire(import.meta.url)(GENERATED_VALIDATORS) as GeneratedModule;
    } catch {
      generated = null;
    }
  }
  return generated;
}

/**
 * Schema ids compiled into the generated module: every document, and every subschema under `properties`,
 * `items` and `$defs` of the interface's documents (the gateway validates single fields and batch items).
 */
export function compiledIds(documents: Map<string, Record<string, any>>): string[] {
  const ids: string[] = [];
  const skip = new Set(['profile.schema.json', 'results.schema.json', 'requirements.schema.json']);
  for (const [id, doc] of documents) {
    ids.push(id);
    if (skip.has(path.posix.basename(id)) || id.includes('/gateway/')) continue;
    const walk = (node: unknown, pointer: string): void => {
      if (!node || typeof node !== 'object' || Array.isArray(node)) return;
      const n = node as Record<string, any>;
      for (const [name, sub] of Object.entries<unknown>(n.properties ?? {})) {
        const at = `${pointer}/properties/${escapeToken(name)}`;
        ids.push(`${id}#${at}`);
        walk(sub, at);
      }
      for (const [name, sub] of Object.entries<unknown>(n.$defs ?? {})) walk(sub, `${pointer}/$defs/${name}`);
      if (n.items && typeof n.items === 'object') {
        ids.push(`${id}#${pointer}/items`);
        walk(n.items, `${pointer}/items`);
      }
      (n.allOf ?? []).forEach((sub: unknown, i: number) => walk(sub, `${pointer}/allOf/${i}`));
      (n.oneOf ?? []).forEach((sub: unknown, i: number) => walk(sub, `${pointer}/oneOf/${i}`));
      (n.anyOf ?? []).forEach((sub: unknown, i: number) => walk(sub, `${pointer}/anyOf/${i}`));
    };
    walk(doc, '');
  }
  return ids;
}

/** An Ajv instance holding every document of a set (for the run-time fallback and the generator). */
export function ajvForSet(
  documents: Map<string, Record<string, any>>,
  options?: Parameters<typeof createAjv>[0],
): Ajv2020 {
  const ajv = createAjv(options);
  for (const doc of documents.values()) ajv.addSchema(doc);
  return ajv;
}

/** Validators of a set: the generated code when the digests match, else Ajv compiling on first use. */
export function validatorSource(set: SchemaSet): ValidatorSource {
  const module = generatedModule();
  const useGenerated = module?.digest === set.digest;
  let ajv: Ajv2020 | undefined;
  const compiled = new Map<string, ValidateFunction>();
  return {
    precompiled: useGenerated,
    validator(schemaId) {
      let fn = compiled.get(schemaId);
      if (fn) return fn;
      const name = useGenerated ? module!.ids[schemaId] : undefined;
      if (name) fn = module![name] as ValidateFunction;
      else {
        ajv ??= ajvForSet(set.documents);
        fn = ajv.getSchema(schemaId);
        if (!fn) throw new SpecError(`spec: no schema ${schemaId}`);
      }
      compiled.set(schemaId, fn);
      return fn;
    },
  };
}

let kitSet: ReturnType<typeof readSchemaSet> | undefined;

/** The kit's own schema set, read once per process (the spec loader and the validators below share it). */
export function kitSchemaSet(): ReturnType<typeof readSchemaSet> {
  kitSet ??= readSchemaSet();
  return kitSet;
}

let kitSource: ValidatorSource | undefined;

/** Validators of the kit's own schema set (profile, gateway configuration, results), made once per process. */
export function kitValidator(schemaId: string): ValidateFunction {
  kitSource ??= validatorSource(kitSchemaSet());
  return kitSource.validator(schemaId);
}
