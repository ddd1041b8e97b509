/**
 * media: body formats and content types of responses, the XML root, request media per profile, the profile's
 * request headers, and the hosted checkout page read statically (one form, POST to `{base_url}/v1/checkout`,
 * submitted on load, every submitted field, alias, `allParams` and gateway-added field).
 */
import type { Check, CheckContext, CheckoutFormModel, Observation } from '../../core/model.js';
import { defineCheck, onlyOnSuccess, onlyWhen, outcomeOf, quoted, succeeded, wrap } from '../findings.js';
import { expectedFormat, formOf, formatOfMediaType, headerOf, operationOf, statusOf } from '../observe.js';
import { renderHeaderValue, renderTemplate } from '../../core/profile/template.js';
import { errorKindOf, requirementFor, sentBody } from './common.js';
import { happy } from '../probes/basic.js';
import { SpecError } from '../../core/types/errors.js';

const BODY_FORMAT_REQUIREMENTS = ['PAGI-MED-006', 'PAGI-MED-007', 'PAGI-MED-008'];

export const responseBodyFormat = onlyOnSuccess(
  defineCheck({
    id: 'responseBodyFormat',
    family: 'media',
    probe: happy,
    operations: 'all',
    requirements: BODY_FORMAT_REQUIREMENTS,
    description: 'The response body is a readable document of the operation’s format: XML, HTML or JSON.',
    verify(o, ctx, report) {
      const expected = expectedFormat(operationOf(ctx.spec, o.operation));
      const decoded = o.main.response?.decoded;
      const requirement = requirementFor(ctx, o.operation, BODY_FORMAT_REQUIREMENTS);
      if (!expected || !decoded) return;
      if (decoded.kind === 'undecodable') {
        report({
          code: 'UNDECODABLE_BODY',
          requirement,
          expected: `a well-formed ${expected.toUpperCase()} body`,
          received: `${decoded.format} that cannot be read: ${decoded.problem}`,
        });
      } else if (decoded.kind === 'empty') {
        report({
          code: 'WRONG_BODY_FORMAT',
          requirement,
          expected: `a ${expected.toUpperCase()} body`,
          received: 'an empty body',
        });
      } else if (decoded.kind !== expected) {
        report({
          code: 'WRONG_BODY_FORMAT',
          requirement,
          expected: `a ${expected.toUpperCase()} body`,
          received: `a ${decoded.kind.toUpperCase()} body`,
        });
      }
    },
  }),
);

/** The XML root element the spec gives an operation's response (`xml.name` of the 200 media schema). */
export function xmlRootName(ctx: CheckContext, operation: Observation['operation']): string | undefined {
  const op = operationOf(ctx.spec, operation);
  const content: Record<string, any> = ctx.spec.openapi.paths[op.path]?.post?.responses?.['200']?.content ?? {};
  for (const [type, media] of Object.entries(content))
    if (formatOfMediaType(type) === 'xml') return media.schema?.xml?.name;
  return undefined;
}

export const xmlRootIsRespon = onlyOnSuccess(
  defineCheck({
    id: 'xmlRootIsRespon',
    family: 'media',
    probe: happy,
    operations: { requirement: 'PAGI-MED-006' },
    requirements: ['PAGI-MED-006'],
    description: 'The XML response is well-formed with the documented root element (respon).',
    verify(o, ctx, report) {
      const root = xmlRootName(ctx, o.operation);
      if (!root) throw new SpecError(`spec: no XML root name for ${o.operation}`);
      const decoded = o.main.response?.decoded;
      if (decoded?.kind === 'xml' && decoded.root !== root) {
        report({
          code: 'XML_ROOT',
          requirement: 'PAGI-MED-006',
          expected: `root element <${root}>`,
          received: `<${decoded.root}>`,
        });
      } else if (decoded?.kind === 'undecodable' && decoded.format === 'xml') {
        const code = /root/i.test(decoded.problem) ? 'XML_ROOT' : 'UNDECODABLE_BODY';
        report({
          code,
          requirement: 'PAGI-MED-006',
          expected: `a well-formed XML document with root <${root}>`,
          received: decoded.problem,
        });
      } else if (decoded?.kind !== 'xml') {
        return { notApplicable: 'the body is not XML; responseBodyFormat reports it' };
      }
    },
  }),
);

/** Media types of XML equivalent by RFC 7303 to the spec's conventional `application/xml`. */
const XML_EQUIVALENTS = ['application/xml', 'text/xml'];

export const responseContentTypeConventional = onlyOnSuccess(
  defineCheck({
    id: 'responseContentTypeConventional',
    family: 'media',
    probe: happy,
    operations: 'all',
    requirements: ['PAGI-MED-009'],
    description: 'The response declares the conventional content type of its body (any charset parameter).',
    verify(o, ctx, report) {
      const op = operationOf(ctx.spec, o.operation);
      const declared = headerOf(o.main.response?.headers, 'content-type');
      const essence = (declared ?? '').split(';')[0]!.trim().toLowerCase();
      const allowed = new Set(op.responseMedia.map((m) => m.type.toLowerCase()));
      if (expectedFormat(op) === 'xml') for (const t of XML_EQUIVALENTS) allowed.add(t);
      if (!allowed.has(essence)) {
        report({
          code: 'CONTENT_TYPE',
          requirement: 'PAGI-MED-009',
          expected: `Content-Type ${[...allowed].join(' or ')}`,
          received: quoted(declared),
        });
      }
    },
  }),
);

export const requestMediaAcceptedPerProfile = defineCheck({
  id: 'requestMediaAcceptedPerProfile',
  family: 'media',
  probe: happy,
  operations: 'all',
  requirements: ['PAGI-MED-005'],
  description: 'A request in the media type the profile names for the operation is accepted, not refused as malformed.',
  verify(o, ctx, report) {
    const type = ctx.profile.requestMedia.types[o.operation];
    if (o.main.request.encoding !== type)
      return { notApplicable: `the kit sent ${o.main.request.encoding}, not the profile's ${type}` };
    if (statusOf(o.main) === 415 || errorKindOf(ctx, o.main, o.operation) === 'malformedBody') {
      report({
        code: 'MEDIA_REFUSED',
        requirement: 'PAGI-MED-005',
        expected: `a ${type} body accepted as the profile says`,
        received: outcomeOf(o.main),
      });
    }
  },
});

export const requestHeadersPerProfile = wrap(
  defineCheck({
    id: 'requestHeadersPerProfile',
    family: 'media',
    probe: happy,
    operations: 'all',
    requirements: ['PAGI-AUTH-012'],
    description: 'A request carrying the extra headers the profile names is accepted.',
    verify(o, ctx, report) {
      const body = sentBody(o.main);
      for (const [name, template] of Object.entries(ctx.profile.requestHeaders.headers)) {
        const sent = headerOf(o.main.request.headers, name);
        if (sent !== renderHeaderValue(template, body))
          return { notApplicable: `the kit did not send the profile's header ${name}` };
      }
      if (!succeeded(o.main)) {
        report({
          code: 'REQUEST_REFUSED',
          requirement: 'PAGI-AUTH-012',
          expected: "a 2xx answer to a request with the profile's headers",
          received: outcomeOf(o.main),
        });
      }
    },
  }),
  onlyWhen(
    (_, ctx) => Object.keys(ctx.profile.requestHeaders.headers).length > 0,
    'the profile names no extra request header',
  ),
);

// ------------------------------------------------------------------ the hosted checkout page

/** Wrap a checkout-page check: it needs a 2xx answer whose body was read into a form model. */
function onPage(check: Check): Check {
  return wrap(
    check,
    onlyOnSuccess,
    onlyWhen(
      (o) => formOf(o.main) !== undefined,
      'the checkout answer is not an HTML page; responseBodyFormat reports it',
    ),
  );
}

/** The form model of an observation's main answer (present: checked by `onPage`). */
function pageOf(o: Observation): CheckoutFormModel {
  return formOf(o.main)!;
}

/** The text a submitted value takes in a hidden input, as the profile serialises nested values. */
export function inputText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** Whether an input holds a nested value equal to the submitted one (JSON text compared as data). */
function sameNested(input: string | undefined, value: unknown): boolean {
  if (input === undefined) return false;
  try {
    return JSON.stringify(JSON.parse(input)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

export const checkoutPageHasOneForm = onPage(
  defineCheck({
    id: 'checkoutPageHasOneForm',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-002'],
    description: 'The checkout page holds a form (the document says "a form"; other forms beside it are not judged).',
    verify(o, _ctx, report) {
      const forms = pageOf(o).forms;
      if (forms < 1)
        report({
          code: 'FORM_COUNT',
          requirement: 'PAGI-CHK-002',
          pointer: '/forms',
          expected: 'a form',
          received: 'no form',
        });
    },
  }),
);

export const checkoutFormPostsToBaseUrl = onPage(
  defineCheck({
    id: 'checkoutFormPostsToBaseUrl',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-002', 'PAGI-CHK-003'],
    description: 'The checkout form is submitted by POST to {base_url}/v1/checkout.',
    verify(o, ctx, report) {
      const form = pageOf(o);
      const spec = operationOf(ctx.spec, o.operation).checkoutForm!;
      if (form.method.toUpperCase() !== spec.method.toUpperCase()) {
        report({
          code: 'FORM_METHOD',
          requirement: 'PAGI-CHK-002',
          pointer: '/method',
          expected: `method ${spec.method}`,
          received: quoted(form.method),
        });
      }
      const expected = spec.action.replace('{base_url}', ctx.config.baseUrl.replace(/\/$/, ''));
      let resolved: string | undefined;
      try {
        resolved = new URL(form.action, o.main.request.url).href;
      } catch {
        resolved = undefined;
      }
      if (resolved !== new URL(expected).href) {
        report({
          code: 'FORM_ACTION',
          requirement: 'PAGI-CHK-003',
          pointer: '/action',
          expected: `action ${expected}`,
          received: quoted(form.action),
        });
      }
    },
  }),
);

export const checkoutFormSubmitsOnLoad = onPage(
  defineCheck({
    id: 'checkoutFormSubmitsOnLoad',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-004'],
    description: 'The page submits the form on load (a body onload handler or an inline script calling submit()).',
    verify(o, _ctx, report) {
      const form = pageOf(o);
      if (!form.autoSubmit || form.autoSubmitBy === 'none') {
        report({
          code: 'FORM_NOT_AUTO_SUBMITTED',
          requirement: 'PAGI-CHK-004',
          pointer: '/autoSubmit',
          expected: 'the form submitted on load',
          received: 'no onload handler or inline script submitting it',
        });
      }
    },
  }),
);

export const checkoutFormEchoesSubmittedFields = onPage(
  defineCheck({
    id: 'checkoutFormEchoesSubmittedFields',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-005', 'PAGI-CHK-010'],
    description: 'Every submitted field is a hidden input under its own name with an equal value.',
    verify(o, _ctx, report) {
      const form = pageOf(o);
      for (const [name, value] of Object.entries(sentBody(o.main))) {
        const input = form.inputs[name];
        const pointer = `/inputs/${name}`;
        if (input === undefined) {
          report({
            code: 'FORM_INPUT_MISSING',
            requirement: 'PAGI-CHK-005',
            pointer,
            expected: `a hidden input ${name}`,
            received: 'no such input',
          });
          continue;
        }
        if (form.inputTypes[name] !== undefined && form.inputTypes[name] !== 'hidden') {
          report({
            code: 'FORM_INPUT_NOT_HIDDEN',
            requirement: 'PAGI-CHK-005',
            pointer,
            expected: `input ${name} of type hidden`,
            received: quoted(form.inputTypes[name], 'type '),
          });
        }
        const nested = typeof value === 'object' && value !== null;
        if (nested ? !sameNested(input, value) : input !== inputText(value)) {
          report({
            code: 'FORM_INPUT_VALUE',
            requirement: nested ? 'PAGI-CHK-010' : 'PAGI-CHK-005',
            pointer,
            expected: nested
              ? `the JSON text of the submitted ${name} (nested values are written as their JSON text)`
              : `the submitted value of ${name}`,
            received: quoted(input),
          });
        }
      }
    },
  }),
);

export const checkoutFormHasEveryAlias = onPage(
  defineCheck({
    id: 'checkoutFormHasEveryAlias',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-006'],
    description: 'Every alias name the document lists is an input of the form.',
    verify(o, ctx, report) {
      const form = pageOf(o);
      const op = operationOf(ctx.spec, o.operation);
      const raw: unknown = ctx.spec.openapi.paths[op.path]?.post?.['x-pagi-checkout-form']?.aliases?.names;
      const listed = Array.isArray(raw) ? raw.map(String) : op.checkoutForm!.aliasNames;
      for (const alias of op.checkoutForm!.aliasNames) {
        if (form.inputs[alias] === undefined)
          report({
            code: 'FORM_INPUT_MISSING',
            requirement: 'PAGI-CHK-006',
            pointer: `/inputs/${alias}`,
            expected: `an input ${alias}`,
            received: 'no such input',
          });
      }
      // An alias the document lists twice: one input, or one per listing, as the profile says (checkout.duplicateAliasInputs).
      const once = ctx.profile.checkout.duplicateAliasInputs === 'once';
      for (const alias of new Set(listed)) {
        const times = listed.filter((a) => a === alias).length;
        const inputs = form.inputOrder.filter((n) => n === alias).length;
        if (times > 1 && inputs > 0 && inputs !== (once ? 1 : times)) {
          report({
            code: 'FORM_INPUT_MISSING',
            requirement: 'PAGI-CHK-006',
            pointer: `/inputs/${alias}`,
            expected: `${once ? 1 : times} input(s) ${alias} (the document lists it ${times} times; profile: ${once ? 'once' : 'as listed'})`,
            received: `${inputs}`,
          });
        }
      }
    },
  }),
);

export const checkoutAliasesEqualSources = onPage(
  defineCheck({
    id: 'checkoutAliasesEqualSources',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-007', 'PAGI-CHK-010'],
    description:
      'Each alias the profile maps to a submitted field holds a submitted value (must) and that field’s value (profile); unmapped ones the profile’s value.',
    verify(o, ctx, report) {
      const form = pageOf(o);
      const sent = sentBody(o.main);
      // "The same values under alias names": an alias holds a value the request submitted. Which one is the profile's map.
      const submitted = new Set(Object.values(sent).map(inputText));
      for (const alias of operationOf(ctx.spec, o.operation).checkoutForm!.aliasNames) {
        const input = form.inputs[alias];
        if (input === undefined) continue; // checkoutFormHasEveryAlias reports it
        const source = (ctx.profile.checkout.aliases as Record<string, string | null | undefined>)[alias];
        if (source === null) continue; // the profile: present, value not compared
        if (source !== undefined && sent[source] !== undefined) {
          if (input !== inputText(sent[source])) {
            const another = submitted.has(input);
            report({
              code: 'FORM_INPUT_VALUE',
              requirement: another ? 'PAGI-CHK-010' : 'PAGI-CHK-007',
              pointer: `/inputs/${alias}`,
              expected: another
                ? `the value of the submitted ${source} (the profile's alias map)`
                : `a submitted value (the profile maps ${alias} to ${source})`,
              received: another ? `${quoted(input)}, the value of another submitted field` : quoted(input),
            });
          }
        } else if (input !== ctx.profile.checkout.unsourcedValue) {
          report({
            code: 'FORM_INPUT_VALUE',
            requirement: 'PAGI-CHK-010',
            pointer: `/inputs/${alias}`,
            expected: `the profile's value for an alias without a submitted source (${JSON.stringify(ctx.profile.checkout.unsourcedValue)})`,
            received: quoted(input),
          });
        }
      }
    },
  }),
);

/** Name/value pairs as sorted `name=value` keys, for a multiset comparison. */
function pairKeys(pairs: Iterable<[string, string]>): string[] {
  return [...pairs].map(([n, v]) => `${n}=${v}`).sort();
}

/** The elements of `a` not matched one for one in `b`. */
function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    return n === 0;
  });
}

export const checkoutAllParamsMatchSubmitted = onPage(
  defineCheck({
    id: 'checkoutAllParamsMatchSubmitted',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-008', 'PAGI-CHK-010'],
    description:
      'allParams, parsed as a query string, holds every submitted parameter, flat ones with their value (must); nested values as JSON text, nothing else, in request order (profile).',
    verify(o, ctx, report) {
      const name = operationOf(ctx.spec, o.operation).checkoutForm!.allParamsName;
      const value = pageOf(o).inputs[name];
      const pointer = `/inputs/${name}`;
      if (value === undefined) {
        report({
          code: 'FORM_INPUT_MISSING',
          requirement: 'PAGI-CHK-008',
          pointer,
          expected: `an input ${name}`,
          received: 'no such input',
        });
        return;
      }
      const body = sentBody(o.main);
      const sent = Object.entries(body).map(([n, v]) => [n, inputText(v)] as [string, string]);
      const got = [...new URLSearchParams(value)];
      const names = (xs: string[]) => xs.map((x) => x.slice(0, x.indexOf('='))).join(', ');
      // The document: the parameters joined as a query string. Each submitted one must be there, a flat one with its
      // value; how a nested value is written and whether other parameters join them are the profile's.
      const nested = new Set(Object.keys(body).filter((n) => typeof body[n] === 'object' && body[n] !== null));
      const gotNames = got.map(([n]) => n);
      const absent = Object.keys(body).filter((n) => !gotNames.includes(n));
      const flatWrong = multisetMinus(
        pairKeys(sent.filter(([n]) => !nested.has(n))),
        pairKeys(got.filter(([n]) => !nested.has(n))),
      ).filter((x) => !absent.includes(x.slice(0, x.indexOf('='))));
      if (absent.length || flatWrong.length) {
        report({
          code: 'ALL_PARAMS_MISMATCH',
          requirement: 'PAGI-CHK-008',
          pointer,
          expected: 'every submitted parameter, a flat one with its submitted value',
          received: [
            absent.length ? `missing: ${absent.join(', ')}` : '',
            flatWrong.length ? `different: ${names(flatWrong)}` : '',
          ]
            .filter(Boolean)
            .join('; '),
        });
        return;
      }
      const missing = multisetMinus(pairKeys(sent), pairKeys(got));
      const extra = multisetMinus(pairKeys(got), pairKeys(sent));
      if (missing.length || extra.length) {
        report({
          code: 'ALL_PARAMS_MISMATCH',
          requirement: 'PAGI-CHK-010',
          pointer,
          expected:
            'the submitted parameters only, each once, nested values as their JSON text (the profile: checkout.allParams)',
          received: `${missing.length ? `written otherwise: ${names(missing)}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `not submitted or repeated: ${names(extra)}` : ''}`,
        });
      } else if (
        ctx.profile.checkout.allParams.order === 'requestOrder' &&
        got.map(([n]) => n).join('&') !== sent.map(([n]) => n).join('&')
      ) {
        report({
          code: 'ALL_PARAMS_MISMATCH',
          requirement: 'PAGI-CHK-010',
          pointer,
          expected: 'the parameters in request order (profile)',
          received: 'another order',
        });
      }
    },
  }),
);

export const checkoutFormHasGatewayFields = onPage(
  defineCheck({
    id: 'checkoutFormHasGatewayFields',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-009', 'PAGI-CHK-010'],
    description:
      'Every gateway-added field the document lists is an input; those the profile gives a value, or a value computed from the request, hold it.',
    verify(o, ctx, report) {
      const form = pageOf(o);
      const values = { ...((ctx.profile.checkout.gatewayFieldValues ?? {}) as Record<string, string>) };
      // Values computed from the request as sent (checkout.derivedGatewayFields).
      const sent = sentBody(o.main);
      for (const [name, template] of Object.entries(ctx.profile.checkout.derivedGatewayFields ?? {}))
        values[name] ??= renderTemplate(template, sent);
      for (const name of operationOf(ctx.spec, o.operation).checkoutForm!.gatewayFields) {
        const input = form.inputs[name];
        if (input === undefined)
          report({
            code: 'FORM_INPUT_MISSING',
            requirement: 'PAGI-CHK-009',
            pointer: `/inputs/${name}`,
            expected: `an input ${name}`,
            received: 'no such input',
          });
        else if (values[name] !== undefined && input !== values[name]) {
          report({
            code: 'FORM_INPUT_VALUE',
            requirement: 'PAGI-CHK-010',
            pointer: `/inputs/${name}`,
            expected: `the profile's value ${JSON.stringify(values[name])}${ctx.profile.checkout.derivedGatewayFields?.[name] !== undefined ? ` (computed from the request: ${JSON.stringify(ctx.profile.checkout.derivedGatewayFields[name])})` : ''}`,
            received: quoted(input),
          });
        }
      }
    },
  }),
);

export const checkoutNeedsNoDirectOnlyField = defineCheck({
  id: 'checkoutNeedsNoDirectOnlyField',
  family: 'media',
  probe: happy,
  operations: ['checkout'],
  requirements: ['PAGI-CHK-001'],
  description: 'A checkout without the direct-only fields (card, secure_payment, accept) is answered with the page.',
  verify(o, ctx, report) {
    const directOnly = operationOf(ctx.spec, o.operation).checkoutForm!.directOnlyFields;
    const sent = sentBody(o.main);
    if (directOnly.some((f) => f in sent)) return { notApplicable: 'the kit sent a direct-only field' };
    if (!succeeded(o.main) || !formOf(o.main)) {
      report({
        code: 'REQUEST_REFUSED',
        requirement: 'PAGI-CHK-001',
        expected: `the checkout page for a request without ${directOnly.join(', ')}`,
        received: outcomeOf(o.main),
      });
    }
  },
});

export const checkoutInputNamesOnce = onPage(
  defineCheck({
    id: 'checkoutInputNamesOnce',
    family: 'media',
    probe: happy,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-012'],
    description:
      'The checkout form holds one input per name: a name no more often than the document lists it (as a submitted field, an alias, allParams or a gateway field).',
    verify(o, ctx, report) {
      const form = pageOf(o);
      const op = operationOf(ctx.spec, o.operation);
      const formSpec = op.checkoutForm!;
      const raw: unknown = ctx.spec.openapi.paths[op.path]?.post?.['x-pagi-checkout-form']?.aliases?.names;
      const aliases = Array.isArray(raw) ? raw.map(String) : formSpec.aliasNames;
      const submitted = sentBody(o.main);
      const counts = new Map<string, number>();
      for (const name of form.inputOrder) counts.set(name, (counts.get(name) ?? 0) + 1);
      for (const [name, times] of counts) {
        // How often the document lists the name: as a submitted field, each alias listing, allParams, a gateway field.
        const listed =
          (Object.hasOwn(submitted, name) ? 1 : 0) +
          aliases.filter((a) => a === name).length +
          (name === formSpec.allParamsName ? 1 : 0) +
          (formSpec.gatewayFields.includes(name) ? 1 : 0);
        if (times > Math.max(1, listed))
          report({
            code: 'FORM_INPUT_REPEATED',
            requirement: 'PAGI-CHK-012',
            pointer: `/inputs/${name}`,
            expected: `at most ${Math.max(1, listed)} input(s) ${name} (as often as the document lists the name)`,
            received: `${times} inputs ${name}`,
          });
      }
    },
  }),
);
