/**
 * Exact reading of JSON text beyond `JSON.parse`: the member names an object holds more than once. `JSON.parse`
 * keeps the last value of a repeated name silently; RFC 8259 (section 4) says names within an object SHOULD be
 * unique and that software receiving an object whose names are not behaves unpredictably. The scanner reads a text
 * `JSON.parse` has accepted, in one pass, and compares names after decoding their escapes (`"a"` and `"\u0061"` are
 * one name).
 */

/** One member name an object holds more than once. */
export interface DuplicateMember {
  /** JSON Pointer (RFC 6901) of the object holding the name twice (`''`: the top-level object). */
  pointer: string;
  /** The repeated name, decoded. */
  name: string;
}

/** Most repeated names recorded for one text (the rest are not reported: the answer is already a finding). */
export const MAX_DUPLICATES = 50;

type Frame =
  | { kind: 'object'; names: Set<string>; key: string | undefined; expectKey: boolean }
  | { kind: 'array'; index: number };

/** An RFC 6901 reference token. */
function token(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The pointer of the innermost container of `stack`, from its ancestors' current keys and indices. */
function pointerOf(stack: readonly Frame[]): string {
  let pointer = '';
  for (let i = 0; i < stack.length - 1; i++) {
    const frame = stack[i]!;
    pointer += `/${frame.kind === 'object' ? token(frame.key ?? '') : String(frame.index)}`;
  }
  return pointer;
}

/** The index of the quote closing the string that opens at `start` (a quote): the first not escaped by a backslash. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let backslashes = 0;
    for (let k = quote - 1; k > start && text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * Every member name an object of `text` (a JSON text `JSON.parse` accepts) holds more than once, in text order,
 * each repeat once per object, at most MAX_DUPLICATES. Linear in the text's length.
 */
export function duplicateMembers(text: string): DuplicateMember[] {
  const found: DuplicateMember[] = [];
  const stack: Frame[] = [];
  const reported = new Set<string>();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        top.expectKey = false;
        top.key = name;
        if (top.names.has(name)) {
          const pointer = pointerOf(stack);
          const id = `${pointer}\u0000${name}`;
          if (!reported.has(id) && found.length < MAX_DUPLICATES) found.push({ pointer, name });
          reported.add(id);
        } else top.names.add(name);
      }
      i = end;
    } else if (c === 123 /* { */) stack.push({ kind: 'object', names: new Set(), key: undefined, expectKey: true });
    else if (c === 91 /* [ */) stack.push({ kind: 'array', index: 0 });
    else if (c === 125 /* } */ || c === 93 /* ] */) stack.pop();
    else if (c === 44 /* , */) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return found;
}
