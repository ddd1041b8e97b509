import { Ajv2020, type ErrorObject, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Annotation keywords of the kit's schemas: they carry data for the kit and never validate. */
// x-pagi-operations: how the profile schema's per-operation parts are generated (scripts/gen-profile-schema.ts).
const ANNOTATION_KEYWORDS = ['x-requirement', 'x-echo', 'x-pagi', 'x-pagi-operations'] as const;

/** An Ajv2020 instance in strict mode with the kit's annotation keywords registered (`extra`: e.g. `code` for standalone output). */
export function createAjv(extra: Pick<Options, 'code'> = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    verbose: true,
    strictRequired: true,
    allowUnionTypes: false,
    ...extra,
  });
  addFormats(ajv);
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword, schemaType: ['string', 'object', 'array'] });
  return ajv;
}

/** One failed schema constraint, with the requirement the constraint comes from. */
export interface SchemaViolation {
  /** Requirement id carried by the failed constraint (`x-requirement`), or undefined when none is found. */
  requirementId: string | undefined;
  keyword: string;
  /** JSON pointer into the validated instance. */
  instancePath: string;
  schemaPath: string;
  /** Ajv's own message, for the evidence; findings build their own prose. */
  message: string;
  params: Record<string, unknown>;
}

/**
 * The requirement a failed keyword traces to: the `x-requirement` of the schema object holding the keyword
 * (ajv's `parentSchema`, available with `verbose: true`).
 */
function requirementOf(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as Record<string, unknown> | undefined;
  const id = parent?.['x-requirement'];
  return typeof id === 'string' ? id : undefined;
}

/** Ajv errors as violations. Errors of combinators (`allOf`, `oneOf` bookkeeping) are kept; callers filter. */
export function toViolations(errors: readonly ErrorObject[] | null | undefined): SchemaViolation[] {
  return (errors ?? []).map((error) => ({
    requirementId: requirementOf(error),
    keyword: error.keyword,
    instancePath: error.instancePath,
    schemaPath: error.schemaPath,
    message: error.message ?? error.keyword,
    params: error.params as Record<string, unknown>,
  }));
}
