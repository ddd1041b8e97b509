/**
 * Bounds of the kit's readers of untrusted bodies. A body past one of them is not parsed: the reader says why, and
 * the check reading the body reports it as a body that cannot be read (a finding, never a crash of the kit). The
 * bounds are the kit's own safety limits, far above any answer of the interface (a query of 100 orders holds
 * about 4,000 members; its deepest object is 6 levels down).
 */

/** Limits of one reader. */
export interface ParseLimits {
  /** Deepest nesting of objects and arrays (JSON) or elements (XML). */
  maxDepth: number;
  /** Most members in the whole document: object keys plus array items (JSON), elements (XML, HTML). */
  maxMembers: number;
}

/** JSON response bodies. */
export const JSON_LIMITS: ParseLimits = { maxDepth: 64, maxMembers: 20_000 };
/** XML response bodies. */
export const XML_LIMITS: ParseLimits = { maxDepth: 64, maxMembers: 20_000 };
/** HTML pages (the checkout page, issuer pages): elements only; HTML closes elements implicitly, so no depth. */
export const HTML_LIMITS: ParseLimits = { maxDepth: Infinity, maxMembers: 20_000 };

/**
 * A JSON text scanned without parsing it, in one piece or as its bytes arrive: the first limit it passes, as a
 * sentence (`over`), or undefined. Strings are skipped (a `{` inside one is text); malformed text is left to the
 * parser. Fed bytes, it reads UTF-8 as is: every character the scan looks at is ASCII, and no byte of a multi-byte
 * character is. Once over a limit it reads no further.
 */
export class JsonScan {
  /** The first limit passed, as a sentence. */
  over: string | undefined;
  // Container kinds of the open levels ('{' or '['), and whether the current array has an item yet.
  private readonly stack: number[] = [];
  private members = 0;
  private pendingItem = false;
  private inString = false;
  private escaped = false;

  constructor(private readonly limits: ParseLimits = JSON_LIMITS) {}

  /** Scan the next piece of text. */
  text(text: string): this {
    for (let i = 0; i < text.length && !this.over; i++) this.step(text.charCodeAt(i));
    return this;
  }

  /** Scan the next bytes (UTF-8). */
  bytes(chunk: Uint8Array): this {
    for (let i = 0; i < chunk.length && !this.over; i++) this.step(chunk[i]!);
    return this;
  }

  private step(c: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === 0x5c) this.escaped = true;
      else if (c === 0x22) this.inString = false;
      return;
    }
    const { stack, limits } = this;
    if (c === 0x22) {
      // a string: skipped to its closing quote
      this.item();
      this.inString = true;
      return;
    }
    if (c === 0x7b || c === 0x5b) {
      this.item();
      stack.push(c);
      if (stack.length > limits.maxDepth) this.over = `nesting deeper than ${limits.maxDepth} levels`;
      this.pendingItem = c === 0x5b;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      this.pendingItem = false;
    } else if (c === 0x3a) {
      this.members++; // an object key
    } else if (c === 0x2c) {
      this.pendingItem = stack[stack.length - 1] === 0x5b;
    } else if (this.pendingItem && c > 0x20) {
      this.item(); // a number, true, false or null as an array item
    }
    if (!this.over && this.members > limits.maxMembers)
      this.over = `more than ${limits.maxMembers} members (object keys and array items)`;
  }

  /** A value starts where an array awaits an item: one more member. */
  private item(): void {
    if (this.pendingItem) {
      this.members++;
      this.pendingItem = false;
    }
  }
}

/** Scan JSON text once without parsing it: the first limit it passes, as a sentence, or undefined. */
export function jsonOverLimit(text: string, limits: ParseLimits = JSON_LIMITS): string | undefined {
  return new JsonScan(limits).text(text).over;
}

/**
 * Scan markup (XML or HTML) once: element count and, when `maxDepth` is finite, element nesting. Comments, CDATA
 * sections, declarations and processing instructions are skipped.
 */
export function markupOverLimit(text: string, limits: ParseLimits): string | undefined {
  let depth = 0;
  let elements = 0;
  const checkDepth = Number.isFinite(limits.maxDepth);
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length - 1) {
    const next = text.charCodeAt(i + 1);
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) break;
      i = text.indexOf('<', end + 3);
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      if (end === -1) break;
      i = text.indexOf('<', end + 3);
      continue;
    }
    const close = text.indexOf('>', i + 1);
    if (close === -1) break;
    if (next === 0x2f)
      depth--; // </name>
    else if (
      next !== 0x21 &&
      next !== 0x3f &&
      ((next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a) || next === 0x5f || next === 0x3a)
    ) {
      elements++;
      if (text.charCodeAt(close - 1) !== 0x2f) depth++; // not <name/>
      if (elements > limits.maxMembers) return `more than ${limits.maxMembers} elements`;
      if (checkDepth && depth > limits.maxDepth) return `elements nested deeper than ${limits.maxDepth} levels`;
    }
    i = text.indexOf('<', close + 1);
  }
  return undefined;
}
