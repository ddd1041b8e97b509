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
  return withinBoundsByCount(text, limits) ? undefined : new JsonScan(limits).text(text).over;
}

/**
 * Whether a JSON text is within `limits` whatever it holds, told from counts alone: the scan counts a member at one
 * character each (so a text no longer than `maxMembers` has no more members), and opens a level only at a `{` or
 * `[` (so a text with no more of them than `maxDepth` nests no deeper). Most answers are told so without the scan.
 */
function withinBoundsByCount(text: string, limits: ParseLimits): boolean {
  if (text.length > limits.maxMembers) return false;
  let opens = 0;
  for (const open of ['{', '[']) {
    for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, at + 1))
      if (++opens > limits.maxDepth) return false;
  }
  return true;
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

/** Where a markup scan is: in text, after `<`, in a tag, a comment or a CDATA section. */
const Mode = { Text: 0, Open: 1, Tag: 2, Comment: 3, Cdata: 4 } as const;
type Mode = (typeof Mode)[keyof typeof Mode];

const COMMENT_OPEN = '!--';
const CDATA_OPEN = '![CDATA[';
/** What the XML reader refuses anywhere in a body (`readXml`: /<!DOCTYPE|<!ENTITY/i), lower case. */
const DECLARATIONS = ['<!doctype', '<!entity'];

/**
 * `markupOverLimit`'s scan, fed the bytes of a body as they arrive (UTF-8: every character it looks at is ASCII):
 * the same counts, the same sentence in `over`. Also notes whether the body holds a DOCTYPE or ENTITY declaration
 * anywhere (`declares`), which the XML reader refuses before any count. A tag, comment or CDATA section left open
 * at the end counts nothing, as in `markupOverLimit`.
 */
export class MarkupScan {
  over: string | undefined;
  declares = false;
  private depth = 0;
  private elements = 0;
  private mode: Mode = Mode.Text;
  /** The characters after `<` while they could still open a comment, a CDATA section or a declaration. */
  private prefix = '';
  /** The tag's kind (from the character after `<`) and its last character before `>`. */
  private kind: 'close' | 'element' | 'other' = 'other';
  private last = 0;
  /** The last two characters (a comment or CDATA section ends with `-->` or `]]>`). */
  private ring = 0;
  /** Characters of each declaration matched so far. */
  private readonly matched = DECLARATIONS.map(() => 0);

  constructor(private readonly limits: ParseLimits) {}

  bytes(chunk: Uint8Array): this {
    let i = 0;
    while (i < chunk.length && !this.over) this.step(chunk[i++]!);
    // Past a bound the counts are settled: only a declaration can still change the outcome, and one starts with `<`,
    // found natively rather than byte by byte (a 7 MB page is otherwise stepped through whole).
    while (i < chunk.length && !this.declares) {
      if (this.matched.every((m) => m === 0)) {
        i = chunk.indexOf(0x3c, i);
        if (i === -1) break;
      }
      this.declaration(chunk[i++]!);
    }
    return this;
  }

  private step(c: number): void {
    if (!this.declares) this.declaration(c);
    switch (this.mode) {
      case Mode.Text:
        if (c === 0x3c) {
          this.mode = Mode.Open;
          this.prefix = '';
        }
        return;
      case Mode.Comment:
      case Mode.Cdata: {
        const end = this.mode === Mode.Comment ? 0x2d : 0x5d;
        if (c === 0x3e && this.ring === ((end << 8) | end)) this.mode = Mode.Text;
        this.ring = ((this.ring << 8) | c) & 0xffff;
        return;
      }
      case Mode.Open:
        this.open(c);
        return;
      case Mode.Tag:
        if (c === 0x3e) this.close();
        else this.last = c;
        return;
    }
  }

  /** A character after `<`: a comment, a CDATA section, a declaration, or a tag of some kind. */
  private open(c: number): void {
    if (this.prefix === '') {
      this.kind =
        c === 0x2f
          ? 'close'
          : c !== 0x21 &&
              c !== 0x3f &&
              ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x3a)
            ? 'element'
            : 'other';
      this.last = 0x3c;
    }
    this.prefix += String.fromCharCode(c);
    const p = this.prefix;
    if (p === COMMENT_OPEN || p === CDATA_OPEN) {
      this.mode = p === COMMENT_OPEN ? Mode.Comment : Mode.Cdata;
      this.ring = 0;
      return;
    }
    const undecided = COMMENT_OPEN.startsWith(p) || CDATA_OPEN.startsWith(p);
    if (c === 0x3e) {
      this.close();
      return;
    }
    this.last = c;
    if (!undecided) this.mode = Mode.Tag;
  }

  /** Match the declarations, case-insensitively (each starts with the only `<` it holds: a mismatch restarts at `<`). */
  private declaration(c: number): void {
    const lower = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    for (let d = 0; d < DECLARATIONS.length; d++) {
      const word = DECLARATIONS[d]!;
      const at = this.matched[d]!;
      const next = lower === word.charCodeAt(at) ? at + 1 : lower === 0x3c ? 1 : 0;
      if (next === word.length) this.declares = true;
      this.matched[d] = next;
    }
  }

  /** The `>` of a tag. */
  private close(): void {
    this.mode = Mode.Text;
    if (this.over) return;
    if (this.kind === 'close') this.depth--;
    else if (this.kind === 'element') {
      this.elements++;
      if (this.last !== 0x2f) this.depth++;
      if (this.elements > this.limits.maxMembers) this.over = `more than ${this.limits.maxMembers} elements`;
      else if (Number.isFinite(this.limits.maxDepth) && this.depth > this.limits.maxDepth)
        this.over = `elements nested deeper than ${this.limits.maxDepth} levels`;
    }
  }
}
