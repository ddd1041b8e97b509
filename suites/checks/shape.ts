/**
 * shape: every response body (JSON; XML mapped to JSON; the checkout page as its form model) against the schema of
 * its variant, each failure at the level of the requirement its constraint carries; undeclared fields as
 * information; and the documented request accepted.
 */
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import type { SchemaViolation } from '../../core/spec/ajv.js';
import { kitSpec, type SpecModel } from '../../core/spec/load.js';
import { FIELD } from '../fields.js';
import {
  allSteps,
  defineCheck,
  onlyOnSuccess,
  outcomeOf,
  succeeded,
  violationFindings,
  type Report,
  type ViolationKind,
} from '../findings.js';
import { operationOf, responseObject } from '../observe.js';
import {
  type AbsentField,
  absentListedFields as listedFieldsAbsent,
  omittedKey,
} from '../../core/spec/listed-fields.js';
import {
  declaredNames,
  schemaRequirements,
  schemaRoot,
  schemasAt,
  undeclaredFields,
} from '../../core/spec/schema-walk.js';
import { refusalInBody, sentBody } from './common.js';
import { happy } from '../probes/basic.js';
import { SpecError } from '../../core/types/errors.js';

/** The requirement a schema's root carries (`x-requirement`), the fallback of its unannotated constraints. */
export function rootRequirement(ctx: CheckContext, schemaId: string): string {
  const id = schemaRoot(ctx.spec, schemaId).node['x-requirement'];
  if (typeof id !== 'string') throw new SpecError(`spec: schema ${schemaId} carries no x-requirement at its root`);
  return id;
}

const spec = kitSpec();
const responseSchemas = [...spec.operations.values()].map((op) => op.responseSchemaId);
const requestSchemas = [...spec.operations.values()].map((op) => op.requestSchemaId);
const responseRequirements = schemaRequirements(spec, responseSchemas);
const requestRequirements = schemaRequirements(spec, requestSchemas);

/**
 * Requirements a response field's absence is reported under instead of PAGI-GEN-011 (`x-pagi: {absent: ID}`: a field its
 * envelope does not list that the document still says responses carry).
 */
const ABSENT_REQUIREMENTS: readonly string[] = (() => {
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const absent = (node as Record<string, any>)['x-pagi']?.absent;
      if (typeof absent === 'string') ids.add(absent);
      Object.values(node).forEach(walk);
    }
  };
  for (const id of responseSchemas) walk(spec.schemas.get(id));
  return [...ids].sort();
})();

/** Requirement ids the response schemas' structural constraints carry (types, required fields, arrays). */
export const RESPONSE_STRUCTURE_REQUIREMENTS = [...responseRequirements.structure].sort();
/** Requirement ids the response schemas' format constraints carry (patterns, formats, excluded forms). */
export const RESPONSE_FORMAT_REQUIREMENTS = [...responseRequirements.format].sort();

const notDecodable = (op: OperationKey) => ({
  notApplicable: `the ${op} body could not be decoded; responseBodyFormat reports it`,
});

/** A main response's schema violations, worked out once per exchange: the structure and format checks both read them. */
const responseValidations = new WeakMap<
  Exchange,
  { spec: SpecModel; instance: Record<string, unknown>; violations: SchemaViolation[] }
>();

/**
 * Report the violations of `kind` of an observation's main response against its variant's response schema.
 * Returns false when the body could not be decoded (nothing reported).
 */
export function reportResponseViolations(
  o: Observation,
  ctx: CheckContext,
  report: Report,
  kind: ViolationKind,
): boolean {
  let done = responseValidations.get(o.main);
  if (!done || done.spec !== ctx.spec) {
    const instance = responseObject(o.main, ctx.spec);
    if (!instance) return false;
    done = {
      spec: ctx.spec,
      instance,
      violations: ctx.spec.validate(operationOf(ctx.spec, o.operation).responseSchemaId, instance),
    };
    responseValidations.set(o.main, done);
  }
  const { responseSchemaId } = operationOf(ctx.spec, o.operation);
  violationFindings({
    ctx,
    report,
    exchange: o.main,
    instance: done.instance,
    violations: done.violations,
    fallbackRequirement: rootRequirement(ctx, responseSchemaId),
    kind,
  });
  return true;
}

export const responseMatchesSchema = onlyOnSuccess(
  defineCheck({
    id: 'responseMatchesSchema',
    family: 'shape',
    probe: happy,
    operations: 'all',
    requirements: RESPONSE_STRUCTURE_REQUIREMENTS,
    description:
      "The response body has the structure of its variant's schema: required fields, types, arrays and objects.",
    verify(o, ctx, report) {
      if (!reportResponseViolations(o, ctx, report, 'structure')) return notDecodable(o.operation);
    },
  }),
);

/** Form inputs the spec names for a checkout page: submitted fields, aliases, allParams and gateway-added fields. */
export function knownInputs(
  ctx: CheckContext,
  operation: OperationKey,
  submitted: Record<string, unknown>,
): Set<string> {
  const form = operationOf(ctx.spec, operation).checkoutForm;
  return new Set([
    ...Object.keys(submitted),
    ...(form?.aliasNames ?? []),
    ...(form ? [form.allParamsName] : []),
    ...(form?.gatewayFields ?? []),
  ]);
}

export const unknownResponseFields = onlyOnSuccess(
  defineCheck({
    id: 'unknownResponseFields',
    family: 'shape',
    probe: happy,
    operations: 'all',
    requirements: [
      ...new Set(responseSchemas.map((id) => schemaRoot(spec, id).node['x-requirement'] as string)),
    ].sort(),
    severity: 'info',
    description:
      'Fields (or checkout inputs) the spec does not declare are reported as information, never as failures.',
    verify(o, ctx, report) {
      const op = operationOf(ctx.spec, o.operation);
      const requirement = rootRequirement(ctx, op.responseSchemaId);
      const instance = responseObject(o.main, ctx.spec);
      if (!instance) return notDecodable(o.operation);
      if (op.checkoutForm) {
        const known = knownInputs(ctx, o.operation, sentBody(o.main));
        const inputs = (instance.inputs ?? {}) as Record<string, string>;
        for (const name of Object.keys(inputs).filter((n) => !known.has(n))) {
          report({
            code: 'UNKNOWN_FIELD',
            requirement,
            severity: 'info',
            pointer: `/inputs/${name}`,
            expected: 'only inputs the spec names',
            received: `input ${name}`,
          });
        }
        return;
      }
      for (const pointer of undeclaredFields(ctx.spec, op.responseSchemaId, instance)) {
        report({
          code: 'UNKNOWN_FIELD',
          requirement,
          severity: 'info',
          pointer,
          expected: `only fields declared by ${op.responseSchemaId.split('/').pop()}`,
          received: `field ${pointer}`,
        });
      }
    },
  }),
);

export const documentedRequestAccepted = defineCheck({
  id: 'documentedRequestAccepted',
  family: 'shape',
  probe: happy,
  operations: 'all',
  requirements: [...new Set([...requestRequirements.structure, ...requestRequirements.format, 'PAGI-MED-001'])].sort(),
  description:
    'A request valid under its schema (every documented field with its documented type and form) is accepted.',
  verify(o, ctx, report) {
    const op = operationOf(ctx.spec, o.operation);
    const sent = sentBody(o.main);
    const own = ctx.spec
      .validate(op.requestSchemaId, sent)
      .filter((v) => !(v.keyword === 'required' && v.params.missingProperty === FIELD.signature));
    if (own.length) {
      return {
        notApplicable: `the kit's own ${o.operation} request is not valid under its schema (${own[0]!.instancePath || '/'} ${own[0]!.message}): the sample is at fault, not the target`,
      };
    }
    const inBody = refusalInBody(ctx, o.main, o.operation);
    if (!succeeded(o.main) || inBody) {
      const requirement = rootRequirement(ctx, op.requestSchemaId);
      report({
        code: 'REQUEST_REFUSED',
        requirement,
        expected: `a 2xx answer to a request valid under ${op.requestSchemaId.split('/').pop()}`,
        received: inBody ? `HTTP 200 refusing it (the profile's ${inBody.kind}, ${inBody.form})` : outcomeOf(o.main),
      });
    }
  },
});

/** Whether the profile declares a listed field of an operation's answer omitted (a path of names, array levels left out). */
export function omittedByProfile(
  ctx: CheckContext,
  operation: OperationKey,
  path: readonly (string | number)[],
): boolean {
  return omittedFields(ctx, operation).has(omittedKey(path));
}

/** The fields of an operation's answer the profile declares omitted, as `omittedKey` paths. */
function omittedFields(ctx: CheckContext, operation: OperationKey): Set<string> {
  return new Set(ctx.profile.responseFields?.omitted?.[operation] ?? []);
}

/** The listed fields an answer leaves out (core/spec/listed-fields.ts), less those the profile declares omitted. */
function absentListedFields(
  ctx: CheckContext,
  operation: OperationKey,
  instance: Record<string, unknown>,
  request: Record<string, unknown>,
): AbsentField[] {
  return listedFieldsAbsent(ctx.spec, operation, instance, {
    request,
    tokenRequestValue: ctx.profile.payments.token.requestValue,
    omitted: omittedFields(ctx, operation),
  });
}

export const responseHoldsListedFields = onlyOnSuccess(
  defineCheck({
    id: 'responseHoldsListedFields',
    family: 'shape',
    probe: happy,
    operations: 'fieldResponse',
    requirements: ['PAGI-GEN-011', ...ABSENT_REQUIREMENTS],
    description:
      'Every field the document lists for the answer (and for each record, item and nested object it holds) is present, unless the profile declares it omitted; required status is not shown, so an absent one is reported at expected (encryption_data of the query and APM answers, which their envelopes do not list, too).',
    verify(o, ctx, report) {
      const body = responseObject(o.main, ctx.spec);
      if (!body) return notDecodable(o.operation);
      for (const { pointer, requirement } of absentListedFields(ctx, o.operation, body, sentBody(o.main))) {
        report({
          code: 'LISTED_FIELD_ABSENT',
          requirement,
          pointer,
          expected: `field ${pointer} (${requirement === 'PAGI-GEN-011' ? 'listed by the document' : `carried by responses, ${requirement}`})`,
          received: 'no such field',
        });
      }
    },
  }),
);

export const responseAddsDocumentedFields = onlyOnSuccess(
  defineCheck({
    id: 'responseAddsDocumentedFields',
    family: 'shape',
    probe: happy,
    operations: ['payout'],
    requirements: ['PAGI-PO-004'],
    description: 'A response that echoes its request also holds every field its schema adds to the request’s.',
    verify(o, ctx, report) {
      const op = operationOf(ctx.spec, o.operation);
      if (!op.echoDeep) return { notApplicable: `the ${o.operation} response does not echo its request` };
      const body = responseObject(o.main, ctx.spec);
      if (!body) return notDecodable(o.operation);
      const request = declaredNames(schemasAt(ctx.spec, op.requestSchemaId, '')) ?? new Set<string>();
      const added = [...(declaredNames(schemasAt(ctx.spec, op.responseSchemaId, '')) ?? [])].filter(
        (n) => !request.has(n),
      );
      // Required status is not shown: an absent added field is reported at the requirement's level (expected).
      for (const field of added.filter((f) => body[f] === undefined && !omittedByProfile(ctx, o.operation, [f]))) {
        report({
          code: 'LISTED_FIELD_ABSENT',
          requirement: 'PAGI-PO-004',
          pointer: `/${field}`,
          expected: `field ${field} (added by the response)`,
          received: 'no such field',
        });
      }
    },
  }),
);

export const jsonMembersNamedOnce = onlyOnSuccess(
  defineCheck({
    id: 'jsonMembersNamedOnce',
    family: 'shape',
    probe: happy,
    operations: { requirement: 'PAGI-MED-010' },
    requirements: ['PAGI-MED-010'],
    description:
      'No object of a JSON answer (the main answer or a step of its scenario) names a member twice: which value is meant cannot be decided.',
    verify(o, _ctx, report) {
      for (const exchange of new Set([o.main, ...allSteps(o)].filter((x) => !x.incoming))) {
        const decoded = exchange.response?.decoded;
        for (const { pointer, name } of decoded?.kind === 'json' ? (decoded.duplicates ?? []) : []) {
          report({
            code: 'DUPLICATE_MEMBER',
            requirement: 'PAGI-MED-010',
            exchange,
            pointer: `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
            expected: `one member ${JSON.stringify(name)} in the object at ${JSON.stringify(pointer || '/')}`,
            received: `${JSON.stringify(name)} named more than once (JSON.parse keeps the last value silently)`,
          });
        }
      }
    },
  }),
);
