import fs from 'node:fs';
import path from 'node:path';
import { createHash, type Hash } from 'node:crypto';
import { parseYamlText } from '../yaml.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { BATCH_TRANSITIONS, type BatchTransition, type OperationKey, type Requirement } from './terms.js';
import { toViolations, type SchemaViolation } from './ajv.js';
import {
  kitSchemaSet,
  kitValidator,
  readSchemaSet,
  validatorSource,
  type SchemaSet,
  type ValidatorSource,
} from './validators.js';
import { KIT_ROOT, SCHEMA_BASE, SCHEMAS_DIR } from './paths.js';
import { resolveRef } from './pointer.js';
import { SpecError } from '../types/errors.js';

/** A media type of a request or response body, and why the spec lists it. */
export interface MediaEntry {
  type: string;
  /** `declared` by the document, used in its `examples` (rule 6), or `conventional` (a header the document does not name). */
  role: 'declared' | 'examples' | 'conventional';
}

/**
 * Response fields that must equal request fields: `requirement` is what the document says (an absent or differently
 * written value breaks it), `integrity` the invariant another value breaks (another merchant, order or amount).
 */
export interface EchoRule {
  fields: string[];
  requirement: string;
  integrity?: string;
}

/** Per-item echo of a batch: each result answers a request item by its key fields. */
export interface EchoItemsRule {
  orders: string;
  key: string[];
  requirement: string;
  /**
   * Fields a result echoes from its request item: every field both the request item's schema and the result's schema
   * declare, but the key fields (derived by the loader; a spec may still list them).
   */
  fields: string[];
  fieldsRequirement: string;
  /** The invariant a result naming another transaction or order, or holding another amount or currency, breaks. */
  integrity?: string;
}

/** The whole request comes back, but for the listed JSON pointers. */
export interface EchoDeepRule {
  except: string[];
  requirement: string;
  /** The pointers whose other value breaks an invariant (another merchant, request or amount), and which. */
  integrity?: { requirement: string; fields: string[] };
}

/** Batch operation facts: item array, per-item status and message fields, and the limit read from the request schema. */
export interface BatchSpec {
  /**
   * The profile's transitions the operation follows (`transitions.<name>`: the states it acts from, the state it
   * leaves, its refusals); absent for a batch the profile has no transitions of (it acts on any payment it holds).
   */
  transition?: BatchTransition;
  orders: string;
  status: string;
  message: string;
  /** `empty`: the message is an empty string on success; `codeMessage`: `<code>:<message>`. */
  messageOnSuccess: 'empty' | 'codeMessage';
  /** `maxItems` of the request's order array. */
  maxItems: number;
  /** Requirement the `maxItems` constraint carries. */
  limitRequirement: string;
}

/** The hosted checkout form (`x-pagi-checkout-form`). */
export interface CheckoutFormSpec {
  method: string;
  action: string;
  submittedFieldsRequirement: string;
  directOnlyFields: string[];
  aliasNames: string[];
  aliasRequirement: string;
  aliasValueRequirement: string;
  allParamsName: string;
  allParamsRequirement: string;
  gatewayFields: string[];
  gatewayFieldsRequirement: string;
}

/**
 * A kind of result returned "with payment results and queries" (`x-pagi.results`): the request field asking for it
 * (absent: always returned), the direct payment response fields and the query order-record fields carrying it.
 */
export interface ResultGroupSpec {
  asks?: string;
  /** `any`: the group is returned when one of its fields is (no single field is required); default `all`. */
  presence?: 'any' | 'all';
  payment: string[];
  query: string[];
  paymentRequirement: string;
  queryRequirement: string;
}

/** One operation of the kit (the authorise path yields two). */
export interface OperationModel {
  key: OperationKey;
  operationId: string;
  method: 'post';
  path: string;
  summary: string;
  /** Selector of the variant on a shared path. */
  when?: { present?: string; absent?: string };
  requestSchemaId: string;
  responseSchemaId: string;
  requestMedia: MediaEntry[];
  /** Media of the 200 response. */
  responseMedia: MediaEntry[];
  /** HTTP error statuses the document lists for this operation. */
  errorStatuses: string[];
  echo: EchoRule[];
  echoItems?: EchoItemsRule;
  echoDeep?: EchoDeepRule;
  batch?: BatchSpec;
  /** The document limits the operation to source addresses the merchant registered (`x-pagi-address-restricted`). */
  addressRestriction?: { requirement: string };
  /** Orders-per-request limit applied through the profile's selection fields (query, refund search). */
  selectionLimit?: { maxOrders: number; requirement: string };
  checkoutForm?: CheckoutFormSpec;
  /** Requirement ids of this operation (kept in sync with the catalogue by `npm run spec:sync`). */
  requirements: string[];
}

/** The compiled spec: loaded and compiled once, shared by the engine, the suites and the gateway. */
export interface SpecModel {
  root: string;
  openapi: Record<string, any>;
  requirements: Map<string, Requirement>;
  operations: Map<OperationKey, OperationModel>;
  /** 3-D Secure, anti-fraud and subscription result groups, by name (`x-pagi.results`). */
  results: Record<string, ResultGroupSpec>;
  /** Schema documents by `$id`. */
  schemas: Map<string, Record<string, any>>;
  /** Whether the validators come from the generated standalone code (`npm run gen:validators`). */
  precompiled: boolean;
  /** sha256 over the spec, the catalogue and every schema file. */
  digest: string;
  /** Compiled validator of a schema `$id` (or `$id#/pointer`). */
  validator(schemaId: string): ValidateFunction;
  /** Validate an instance; an empty list means valid. */
  validate(schemaId: string, instance: unknown): SchemaViolation[];
}

/** Turn a component `$ref` to a schema file (`../schemas/x.schema.json`) into its `$id`. */
export function schemaIdOfFileRef(ref: string): string {
  return SCHEMA_BASE + path.posix.basename(ref);
}

/** Resolve `#/components/schemas/Name` of the OpenAPI document to the schema `$id` it stands for. */
function componentSchemaId(openapi: Record<string, any>, pointer: string): string {
  const name = pointer.replace(/^#\/components\/schemas\//, '');
  const ref = openapi.components?.schemas?.[name]?.$ref;
  if (typeof ref !== 'string')
    throw new SpecError(`spec: ${pointer} is not a component schema with a $ref to a schema file`);
  return schemaIdOfFileRef(ref);
}

function mediaOf(content: Record<string, any> | undefined): MediaEntry[] {
  return Object.entries(content ?? {}).map(([type, media]) => ({ type, role: media['x-pagi-media'] }));
}

/** Every schema node (with the `$id` of its document) that describes the same value as `node`: `$ref` and `allOf` followed. */
function composed(
  schemas: Map<string, Record<string, any>>,
  node: any,
  base: string,
  seen = new Set<unknown>(),
): { node: Record<string, any>; base: string }[] {
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  const out = [{ node, base }];
  if (typeof node.$ref === 'string') {
    const target = resolveRef(schemas, node.$ref, base);
    out.push(...composed(schemas, target.node, target.base, seen));
  }
  for (const sub of node.allOf ?? []) out.push(...composed(schemas, sub, base, seen));
  return out;
}

/** Property names the items of array property `prop` of a schema declare (`$ref` and `allOf` followed). */
function itemPropertyNames(schemas: Map<string, Record<string, any>>, schemaId: string, prop: string): Set<string> {
  const names = new Set<string>();
  for (const at of composed(schemas, schemas.get(schemaId), schemaId))
    for (const arr of composed(schemas, at.node.properties?.[prop], at.base))
      for (const item of composed(schemas, arr.node.items, arr.base))
        for (const name of Object.keys(item.node.properties ?? {})) names.add(name);
  return names;
}

/** Property names a schema of the spec declares at its top level (`$ref` and `allOf` followed). */
export function topLevelNames(spec: Pick<SpecModel, 'schemas'>, schemaId: string): Set<string> {
  const names = new Set<string>();
  for (const at of schemaView(spec, schemaId))
    for (const name of Object.keys(at.node.properties ?? {})) names.add(name);
  return names;
}

/** A schema as every node describing the same value (`$ref` and `allOf` followed), each with the `$id` it is read against. */
export type SchemaView = { node: Record<string, any>; base: string }[];

/** The schema of `$id` as a view. */
export function schemaView(spec: Pick<SpecModel, 'schemas'>, schemaId: string): SchemaView {
  return composed(spec.schemas, spec.schemas.get(schemaId), schemaId);
}

/** The properties a schema view declares, each as a view (the first declaration of a name wins). */
export function propertiesOf(spec: Pick<SpecModel, 'schemas'>, view: SchemaView): Map<string, SchemaView> {
  const out = new Map<string, SchemaView>();
  for (const at of view)
    for (const [name, node] of Object.entries(at.node.properties ?? {}))
      if (!out.has(name)) out.set(name, composed(spec.schemas, node, at.base));
  return out;
}

/** The items of an array schema view, as a view (empty when no node declares `items`). */
export function itemsOf(spec: Pick<SpecModel, 'schemas'>, view: SchemaView): SchemaView {
  const at = view.find((v) => v.node.items && typeof v.node.items === 'object');
  return at ? composed(spec.schemas, at.node.items, at.base) : [];
}

/** The fields a batch result echoes from its request item: those both schemas declare, the key fields aside. */
function echoedItemFields(
  schemas: Map<string, Record<string, any>>,
  requestSchemaId: string,
  responseSchemaId: string,
  rule: { orders: string; key: string[] },
): string[] {
  const results = itemPropertyNames(schemas, responseSchemaId, rule.orders);
  return [...itemPropertyNames(schemas, requestSchemaId, rule.orders)].filter(
    (f) => results.has(f) && !rule.key.includes(f),
  );
}

/** Find, below a schema, the `maxItems` of property `prop` and the requirement it carries (follows `$ref` and `allOf`). */
function findMaxItems(
  schemas: Map<string, Record<string, any>>,
  schemaId: string,
  prop: string,
): { maxItems: number; requirement: string } | undefined {
  const seen = new Set<unknown>();
  const inArray = (node: any, base: string): { maxItems: number; requirement: string } | undefined => {
    if (!node || typeof node !== 'object' || seen.has(node)) return undefined;
    seen.add(node);
    if (typeof node.maxItems === 'number') return { maxItems: node.maxItems, requirement: node['x-requirement'] };
    for (const sub of node.allOf ?? []) {
      const hit = inArray(sub, base);
      if (hit) return hit;
    }
    if (typeof node.$ref === 'string') {
      const target = resolveRef(schemas, node.$ref, base);
      return inArray(target.node, target.base);
    }
    return undefined;
  };
  const walk = (node: any, base: string): { maxItems: number; requirement: string } | undefined => {
    if (!node || typeof node !== 'object') return undefined;
    if (node.properties?.[prop]) {
      const hit = inArray(node.properties[prop], base);
      if (hit) return hit;
    }
    for (const sub of node.allOf ?? []) {
      const hit = walk(sub, base);
      if (hit) return hit;
    }
    return undefined;
  };
  return walk(schemas.get(schemaId), schemaId);
}

/** One line per schema violation of the catalogue: the JSON pointer into the file and what is wrong there. */
function catalogueError(file: string, violations: SchemaViolation[], shown = 10): string {
  const lines = violations.map((v) => {
    const { additionalProperty, missingProperty, allowedValues } = v.params as Record<string, unknown>;
    if (v.keyword === 'additionalProperties') return `${v.instancePath}/${String(additionalProperty)}: unknown key`;
    if (v.keyword === 'required') return `${v.instancePath}/${String(missingProperty)}: missing (required)`;
    if (v.keyword === 'enum')
      return `${v.instancePath || '/'}: must be one of ${(allowedValues as unknown[]).join(', ')}`;
    return `${v.instancePath || '/'}: ${v.message}`;
  });
  const more = lines.length > shown ? [`… and ${lines.length - shown} more`] : [];
  return [`spec: ${file} does not match schemas/requirements.schema.json:`, ...lines.slice(0, shown), ...more].join(
    '\n  ',
  );
}

/** The schema set under `schemaDir` and the spec's schemas in it by `$id`, each file's name and text hashed. */
function readSchemas(
  schemaDir: string,
  hash: Hash,
): { set: ReturnType<typeof readSchemaSet>; schemas: Map<string, Record<string, any>> } {
  const set = path.resolve(schemaDir) === SCHEMAS_DIR ? kitSchemaSet() : readSchemaSet(schemaDir);
  const schemas = new Map<string, Record<string, any>>();
  for (const file of set.files) {
    if (file.name.includes('/')) continue; // the gateway's config schema travels with the set; it is not the spec's
    hash.update(file.name).update(file.text);
    const schema = file.doc;
    if (schema.$id !== SCHEMA_BASE + file.name)
      throw new SpecError(`spec: schemas/${file.name} has $id ${schema.$id}, expected ${SCHEMA_BASE + file.name}`);
    schemas.set(schema.$id, schema);
  }
  return { set, schemas };
}

/**
 * The catalogue's requirements by id, once it is valid against its schema, names only operations of the spec
 * (`operations`: the spec's keys) and holds no id twice.
 */
function readRequirements(
  catalogue: unknown,
  catalogueFile: string,
  set: SchemaSet,
  source: ValidatorSource,
  operations: ReadonlySet<string>,
): Map<string, Requirement> {
  const catalogueSchemaId = `${SCHEMA_BASE}requirements.schema.json`;
  const validateCatalogue = set.documents.has(catalogueSchemaId)
    ? source.validator(catalogueSchemaId)
    : kitValidator(catalogueSchemaId);
  const violations = validateCatalogue(catalogue) ? [] : toViolations(validateCatalogue.errors);
  const reported = new Set(violations.map((v) => v.instancePath));
  violations.push(...foreignOperations(catalogue, operations).filter((v) => !reported.has(v.instancePath)));
  if (violations.length) throw new SpecError(catalogueError(catalogueFile, violations));
  const requirements = new Map<string, Requirement>();
  for (const entry of (catalogue as { requirements: Requirement[] }).requirements) {
    if (requirements.has(entry.id))
      throw new SpecError(`spec: ${catalogueFile} lists the requirement id ${entry.id} twice`);
    requirements.set(entry.id, entry);
  }
  return requirements;
}

/** A requirement's operation that is no operation of the spec, as the schema's enum would word it. */
function foreignOperations(catalogue: unknown, operations: ReadonlySet<string>): SchemaViolation[] {
  const entries = (catalogue as { requirements?: unknown } | undefined)?.requirements;
  if (!Array.isArray(entries)) return [];
  const allowedValues = [...operations];
  return entries.flatMap((entry, i) => {
    const named = (entry as { operations?: unknown } | undefined)?.operations;
    if (!Array.isArray(named)) return [];
    return named.flatMap((op, j) =>
      typeof op === 'string' && !operations.has(op)
        ? [
            {
              requirementId: undefined,
              keyword: 'enum',
              instancePath: `/requirements/${i}/operations/${j}`,
              schemaPath: '',
              message: 'is no operation of the spec',
              params: { allowedValues },
            },
          ]
        : [],
    );
  });
}

/** The hosted checkout form of `x-pagi-checkout-form`. */
function checkoutFormSpec(form: Record<string, any>): CheckoutFormSpec {
  return {
    method: form.method,
    action: form.action,
    submittedFieldsRequirement: form.submittedFields.requirement,
    directOnlyFields: form.directOnlyFields,
    aliasNames: [...new Set<string>(form.aliases.names)],
    aliasRequirement: form.aliases.requirement,
    aliasValueRequirement: form.aliases.valueRequirement,
    allParamsName: form.allParams.name,
    allParamsRequirement: form.allParams.requirement,
    gatewayFields: form.gatewayFields.names,
    gatewayFieldsRequirement: form.gatewayFields.requirement,
  };
}

/** The facts the operation's extensions add to a variant's model: batch, selection limit, address restriction, form. */
function addOperationExtensions(
  model: OperationModel,
  op: Record<string, any>,
  schemas: Map<string, Record<string, any>>,
): void {
  const batch = op['x-pagi-batch'];
  if (batch) {
    const limit = findMaxItems(schemas, model.requestSchemaId, batch.orders);
    if (!limit) throw new SpecError(`spec: ${model.key} request schema has no maxItems on ${batch.orders}`);
    if (batch.transition !== undefined && !BATCH_TRANSITIONS.includes(batch.transition))
      throw new SpecError(
        `spec: ${model.key} x-pagi-batch.transition is ${JSON.stringify(batch.transition)}; use one of the profile's batch transitions: ${BATCH_TRANSITIONS.join(', ')}`,
      );
    model.batch = { ...batch, maxItems: limit.maxItems, limitRequirement: limit.requirement };
  }
  const selection = op['x-pagi-limit'];
  if (selection) model.selectionLimit = { maxOrders: selection.maxOrders, requirement: selection.requirement };
  const restricted = op['x-pagi-address-restricted'];
  if (restricted) model.addressRestriction = { requirement: restricted.requirement };
  const form = op['x-pagi-checkout-form'];
  if (form) model.checkoutForm = checkoutFormSpec(form);
}

/** The model of one variant (`x-pagi-variants`) of the POST operation at `opPath`. */
function variantModel(
  openapi: Record<string, any>,
  schemas: Map<string, Record<string, any>>,
  opPath: string,
  op: Record<string, any>,
  variant: Record<string, any>,
): OperationModel {
  const requestSchemaId = componentSchemaId(openapi, variant.request);
  const responseSchemaId = componentSchemaId(openapi, variant.response);
  const model: OperationModel = {
    key: variant.key,
    operationId: op.operationId,
    method: 'post',
    path: opPath,
    summary: variant.summary ?? op.summary,
    when: variant.when,
    requestSchemaId,
    responseSchemaId,
    requestMedia: mediaOf(op.requestBody?.content),
    responseMedia: mediaOf(op.responses?.['200']?.content),
    errorStatuses: variant.errorResponses ?? [],
    echo: variant.echo ?? [],
    echoItems: variant.echoItems && {
      ...variant.echoItems,
      fields:
        variant.echoItems.fields ?? echoedItemFields(schemas, requestSchemaId, responseSchemaId, variant.echoItems),
    },
    echoDeep: variant.echoDeep,
    requirements: variant.requirements ?? [],
  };
  addOperationExtensions(model, op, schemas);
  return model;
}

/** The operations of the spec by key: one per variant of each path's POST operation. */
function readOperations(
  openapi: Record<string, any>,
  schemas: Map<string, Record<string, any>>,
): Map<OperationKey, OperationModel> {
  const operations = new Map<OperationKey, OperationModel>();
  for (const [opPath, item] of Object.entries<Record<string, any>>(openapi.paths)) {
    const op = item.post;
    if (!op) throw new SpecError(`spec: ${opPath} has no POST operation`);
    for (const variant of op['x-pagi-variants'] as any[]) {
      const model = variantModel(openapi, schemas, opPath, op, variant);
      if (operations.has(model.key)) throw new SpecError(`spec: duplicate operation key ${model.key}`);
      operations.set(model.key, model);
    }
  }
  return operations;
}

/** Load and compile the spec, the requirement catalogue and every schema under `root` (the kit's folder by default). */
export function loadSpec(root: string = KIT_ROOT): SpecModel {
  const specFile = path.join(root, 'spec', 'openapi.yaml');
  const catalogueFile = path.join(root, 'spec', 'requirements.yaml');
  const hash = createHash('sha256');

  const specText = fs.readFileSync(specFile, 'utf8');
  const catalogueText = fs.readFileSync(catalogueFile, 'utf8');
  const openapi = parseYamlText(specText, specFile);
  const catalogue = parseYamlText(catalogueText, catalogueFile);
  hash.update(specText).update(catalogueText);

  const { set, schemas } = readSchemas(path.join(root, 'schemas'), hash);
  const source = validatorSource(set);
  const operations = readOperations(openapi, schemas);
  const requirements = readRequirements(catalogue, catalogueFile, set, source, new Set(operations.keys()));
  const validator = (schemaId: string): ValidateFunction => source.validator(schemaId);

  return {
    root,
    openapi,
    requirements,
    operations,
    results: openapi['x-pagi']?.results ?? {},
    schemas,
    precompiled: source.precompiled,
    digest: hash.digest('hex'),
    validator,
    validate(schemaId, instance) {
      const fn = validator(schemaId);
      return fn(instance) ? [] : toViolations(fn.errors);
    },
  };
}

let cached: SpecModel | undefined;

/** The kit's own spec, loaded once per process. */
export function kitSpec(): SpecModel {
  cached ??= loadSpec();
  return cached;
}
