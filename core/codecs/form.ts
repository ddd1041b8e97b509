/**
 * application/x-www-form-urlencoded bodies. Nested values (objects, arrays) travel as their JSON text (what a gateway
 * makes of it on reading is the profile's `requestMedia.formNestedValues`: decoded, or kept as that text).
 */

/** Encode a body as form fields: scalars as text, nested values as JSON text, null/undefined left out. */
export function encodeForm(body: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    params.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return params.toString();
}

/**
 * Decode form fields. A value that is JSON text of an object or array is parsed back when `nestedFields`
 * names it (or, with no list, whenever it parses as one); a repeated name keeps its last value.
 */
export function decodeForm(text: string, nestedFields?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a field named `__proto__` must stay a plain own property.
  const set = (name: string, value: unknown) =>
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  for (const [name, value] of new URLSearchParams(text)) {
    const mayBeNested = nestedFields ? nestedFields.has(name) : true;
    const first = value.trimStart()[0];
    if (mayBeNested && (first === '{' || first === '[')) {
      try {
        set(name, JSON.parse(value));
        continue;
      } catch {
        // not JSON: keep the text
      }
    }
    set(name, value);
  }
  return out;
}

/**
 * Read a request body whatever its declared type (the document's rule 6: examples send JSON under a form
 * content type): JSON when it parses as a JSON object, otherwise form fields. `undefined` when neither.
 */
export function sniffBody(text: string): { encoding: 'json' | 'form'; value: Record<string, unknown> } | undefined {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const value = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) return { encoding: 'json', value };
    } catch {
      return undefined;
    }
    return undefined;
  }
  if (trimmed === '' || /^[[\]"0-9-]|^(true|false|null)$/.test(trimmed)) return undefined;
  if (!/^[^=&]*=/.test(trimmed)) return undefined;
  return { encoding: 'form', value: decodeForm(text) };
}
