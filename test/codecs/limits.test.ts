/**
 * The readers' bounds scanned as a body arrives (JsonScan, MarkupScan, fed bytes in pieces of any size) count
 * exactly as the scans of whole text the readers make (jsonOverLimit, markupOverLimit, readXml's declaration test).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonScan, MarkupScan, jsonOverLimit, markupOverLimit, type ParseLimits } from '../../core/codecs/limits.js';

const SMALL: ParseLimits = { maxDepth: 4, maxMembers: 12 };
const SMALL_HTML: ParseLimits = { maxDepth: Infinity, maxMembers: 12 };

/** `text` as UTF-8 bytes cut at the given places. */
function pieces(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(from, c));
    from = c;
  }
  return out;
}

const jsonText = fc.array(
  fc.constantFrom('{', '}', '[', ']', ':', ',', '"a"', '"\\"{"', '1', 'true', ' ', '"é"', '"k":', '[1,2]'),
  { maxLength: 80 },
);
const markupText = fc.array(
  fc.constantFrom(
    '<a>',
    '</a>',
    '<b/>',
    '<!-- <c> -->',
    '<![CDATA[<d>]]>',
    '<?xml version="1.0"?>',
    '<!DOCTYPE x>',
    '<!doctype',
    '<!ENTITY',
    '<!-->',
    '<',
    '>',
    'text',
    'é',
    '<e x="1">',
    '-->',
    ']]>',
  ),
  { maxLength: 60 },
);

describe('scans fed bytes as they arrive', () => {
  it('JsonScan says what jsonOverLimit says, whatever the pieces', () => {
    fc.assert(
      fc.property(jsonText, fc.array(fc.nat(400)), (parts, cuts) => {
        const text = parts.join('');
        const scan = new JsonScan(SMALL);
        for (const p of pieces(text, cuts)) scan.bytes(p);
        expect(scan.over).toBe(jsonOverLimit(text, SMALL));
      }),
      { numRuns: 500 },
    );
  });

  it('MarkupScan says what markupOverLimit says, and sees the declarations readXml refuses', () => {
    fc.assert(
      fc.property(markupText, fc.array(fc.nat(400)), fc.boolean(), (parts, cuts, html) => {
        const text = parts.join('');
        const limits = html ? SMALL_HTML : SMALL;
        const scan = new MarkupScan(limits);
        for (const p of pieces(text, cuts)) scan.bytes(p);
        expect(scan.over).toBe(markupOverLimit(text, limits));
        expect(scan.declares).toBe(/<!DOCTYPE|<!ENTITY/i.test(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('a million keys are refused after the first 20,000 members, deep nesting at the 65th level', () => {
    const scan = new JsonScan().bytes(Buffer.from(`{"l":[${'{"a":0},'.repeat(30_000)}`));
    expect(scan.over).toBe('more than 20000 members (object keys and array items)');
    expect(new JsonScan().bytes(Buffer.from('['.repeat(100))).over).toBe('nesting deeper than 64 levels');
  });
});
