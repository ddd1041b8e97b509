import fc from 'fast-check';
import { XMLBuilder } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { readXml, writeXml } from '../../core/codecs/xml.js';

/** The library writer `writeXml` replaced, with the options the kit used. */
const builder = new XMLBuilder({
  ignoreAttributes: true,
  format: false,
  suppressEmptyNode: false,
  processEntities: true,
});
const viaBuilder = (root: string, value: Record<string, unknown>) =>
  `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ [root]: value })}`;

const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('"><script>alert(1)</script>', '</note><x>', "a & b 'c'", ''),
);
const scalar = fc.oneof(text, fc.integer(), fc.boolean());
const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  // null only outside arrays: the builder moves null items of an array before the others, the writer keeps their order.
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.constant(null),
    tie('object'),
    fc.array(fc.oneof(scalar, tie('object')), { maxLength: 3 }),
  ),
  object: fc.dictionary(name, tie('value'), { maxKeys: 6 }),
}));

describe('XML writer', () => {
  it('writes what fast-xml-parser’s XMLBuilder writes, on generated values', () => {
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 8 }), (v) => {
        expect(writeXml('respon', v)).toBe(viaBuilder('respon', v));
      }),
      { numRuns: 500, seed: 20261122 },
    );
  });

  it('escapes every value: hostile text parses back as exactly the text, with no added element', () => {
    const hostile = `"><script>alert('x')</script></note><x>&amp;`;
    const xml = writeXml('respon', { note: hostile, list: [hostile, 'b'], nested: { inner: hostile } });
    const read = readXml(xml, 'respon');
    expect(read.ok && read.value).toEqual({ note: hostile, list: [hostile, 'b'], nested: { inner: hostile } });
  });

  it('refuses an element name that is not an XML name', () => {
    expect(() => writeXml('respon', { 'a><b': '1' })).toThrow(TypeError);
  });
});

describe('XML reader: character references and CDATA', () => {
  it('reads numeric character references and the predefined entities as the characters they stand for', () => {
    const read = readXml('<respon><note>&#76;eave &#x3C;b&#x3e; &amp;amp; &lt;&#38;lt;</note></respon>');
    expect(read.ok && read.value.note).toBe('Leave <b> &amp; <&lt;');
  });

  it('reads a CDATA section as exactly its characters, references in it included, beside text and comments', () => {
    const read = readXml(
      '<respon><note>a <![CDATA["><script>alert(1)</script> &amp; ]]>b</note><!-- <![CDATA[ x ]]> --><c><![CDATA[]]></c></respon>',
    );
    expect(read.ok && read.value).toEqual({ note: 'a "><script>alert(1)</script> &amp; b', c: '' });
  });
});
