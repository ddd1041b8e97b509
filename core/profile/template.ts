/**
 * The one renderer of the profile's value templates (`$defs/template` of the profile schema): error bodies and
 * messages, and the extra request headers. The kit's client, its checks, the reference gateway and the pact states
 * all render through here, so what is sent and what is expected can never disagree.
 *
 * Rules:
 * - `{request.<field>}` is the top-level request field as received: a string as is, a number or a boolean as
 *   `String(value)`; an absent field, `null`, an object or an array renders as the empty string.
 * - `{request.<field>|<filter>}` is that text through one filter: `length` (its number of characters), `upper`,
 *   `lower`, `host` (the host name of a URL, empty when the text is not one). Values computed from the request
 *   (`checkout.derivedGatewayFields`).
 * - `{<name>}` with a value in `vars` (`code`, `message`, `httpStatus` for error templates) renders that value.
 * - Any other `{...}` stays as written; all other text is literal.
 */

/** One piece of a template: literal text, or a placeholder's name (without the braces). */
export type TemplatePart = { text: string } | { placeholder: string };

const PLACEHOLDER = /\{([^{}]+)\}/g;
const REQUEST = 'request.';

/** A template split into literal text and placeholders, in order. */
export function templateParts(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let at = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (m.index > at) parts.push({ text: template.slice(at, m.index) });
    parts.push({ placeholder: m[1]! });
    at = m.index + m[0].length;
  }
  if (at < template.length) parts.push({ text: template.slice(at) });
  return parts;
}

/** The filters of `{request.<field>|<filter>}`. */
const FILTERS: Record<string, (text: string) => string> = {
  length: (text) => String([...text].length),
  upper: (text) => text.toUpperCase(),
  lower: (text) => text.toLowerCase(),
  host: (text) => {
    try {
      return /^https?:$/.test(new URL(text).protocol) ? new URL(text).hostname : '';
    } catch {
      return '';
    }
  },
};

/** A request placeholder split into its field and filter (`request.order_no|length`), or undefined for any other. */
function requestPlaceholder(placeholder: string): { field: string; filter?: (text: string) => string } | undefined {
  if (!placeholder.startsWith(REQUEST)) return undefined;
  const rest = placeholder.slice(REQUEST.length);
  const bar = rest.lastIndexOf('|');
  const name = bar >= 0 ? rest.slice(bar + 1) : '';
  const filter = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
  return filter ? { field: rest.slice(0, bar), filter } : { field: rest };
}

/** The request field a placeholder names (`request.<field>`, with or without a filter), or undefined for any other placeholder. */
export function requestFieldOf(placeholder: string): string | undefined {
  return requestPlaceholder(placeholder)?.field;
}

/** The text a request field renders as: strings, numbers and booleans; empty for anything else or nothing. */
function requestFieldText(request: Record<string, unknown>, field: string): string {
  const v = request[field];
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** The text of one placeholder under the rules above. */
export function placeholderText(
  placeholder: string,
  request: Record<string, unknown>,
  vars: Readonly<Record<string, string>> = {},
): string {
  const named = requestPlaceholder(placeholder);
  if (named) {
    const text = requestFieldText(request, named.field);
    return named.filter ? named.filter(text) : text;
  }
  return Object.hasOwn(vars, placeholder) ? vars[placeholder]! : `{${placeholder}}`;
}

/** A template rendered for a request (and, for error templates, the error's `code`, `message` and `httpStatus`). */
export function renderTemplate(
  template: string,
  request: Record<string, unknown>,
  vars: Readonly<Record<string, string>> = {},
): string {
  return templateParts(template)
    .map((p) => ('text' in p ? p.text : placeholderText(p.placeholder, request, vars)))
    .join('');
}

/**
 * A header value template rendered for a request, as it goes on the wire: every byte outside printable ASCII, and
 * `%` itself, percent-encoded as UTF-8 (a header value cannot carry them as they are).
 */
export function renderHeaderValue(template: string, request: Record<string, unknown>): string {
  return renderTemplate(template, request).replace(/[^\x20-\x7e]|%/gu, (c) =>
    [...new TextEncoder().encode(c)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}
