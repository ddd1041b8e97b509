/**
 * A notification body in the gateway's own shape (`notifications.kinds.*.ownShape`): the JSON Schema the profile
 * gives for it, compiled as untrusted input, and the template the reference gateway fills from the response.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../spec/ajv.js';
import { childPointer } from '../spec/pointer.js';
import { renderTemplate } from './template.js';

type TemplateObject = { [key: string]: string | TemplateObject };

const compiled = new WeakMap<object, ValidateFunction | Error>();

/**
 * The validator of a profile's notification body schema, or the Error saying why it does not compile. The schema is
 * untrusted: it is compiled by a fresh instance of the kit's Ajv set-up (strict mode: an unknown keyword, a type
 * ambiguity or a `required` without its property is an error) that holds no other schema and loads nothing, so a
 * `$ref` can only point inside the schema itself (a remote reference fails to compile).
 */
export function notificationSchemaValidator(schema: object): ValidateFunction | Error {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      // A plain copy: the profile may reach here through a read-recording proxy.
      const copy = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
      validate = createAjv().compile(copy);
    } catch (error) {
      validate = error instanceof Error ? error : new Error(String(error));
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** The `{response.<field>}` values of a response for a template (top-level scalars as text; absent ones empty). */
function responseVars(template: TemplateObject, response: Record<string, unknown>): Record<string, string> {
  const vars: Record<string, string> = {};
  const walk = (shape: TemplateObject) => {
    for (const value of Object.values(shape)) {
      if (typeof value !== 'string') {
        walk(value);
        continue;
      }
      for (const m of value.matchAll(/\{response\.([^{}|]+)\}/g)) {
        const v = response[m[1]!];
        vars[`response.${m[1]}`] =
          typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
      }
    }
  };
  walk(template);
  return vars;
}

/** The notification body a template gives for a response: every string filled, `{response.<field>}` from it. */
export function fillNotification(template: TemplateObject, response: Record<string, unknown>): Record<string, unknown> {
  const vars = responseVars(template, response);
  const fill = (shape: TemplateObject): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(shape).map(([k, v]) => [k, typeof v === 'string' ? renderTemplate(v, {}, vars) : fill(v)]),
    );
  return fill(template);
}

/**
 * The fields of a template the kit can compare against a received notification: JSON pointer → expected text, for
 * every template string whose `{response.<field>}` placeholders the response carries.
 */
export function expectedNotificationFields(
  template: TemplateObject,
  response: Record<string, unknown>,
): Map<string, string> {
  const out = new Map<string, string>();
  const vars = responseVars(template, response);
  const walk = (shape: TemplateObject, at: string) => {
    for (const [k, v] of Object.entries(shape)) {
      const pointer = childPointer(at, k);
      if (typeof v !== 'string') {
        walk(v, pointer);
        continue;
      }
      const fields = [...v.matchAll(/\{response\.([^{}|]+)\}/g)].map((m) => m[1]!);
      if (fields.some((f) => response[f] === undefined)) continue;
      out.set(pointer, renderTemplate(v, {}, vars));
    }
  };
  walk(template, '');
  return out;
}
