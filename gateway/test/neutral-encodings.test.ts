/**
 * The neutral variants of the decoding rules change only how an answer is written, never what it says: each rewritten
 * text reads back, through the kit's own readers, as the same value as the reference's.
 */
import { describe, expect, it } from 'vitest';
import { readCheckoutForm, readPageTexts } from '../../core/codecs/html.js';
import { readXml, writeXml } from '../../core/codecs/xml.js';
import { escapeHtml } from '../html.js';
import { cdataXml, referencedHtml, referencedXml, requotedHtml, unicodeEscapedJson } from '../faults-neutral.js';

const TEXTS = ['Leave the parcel', '"><script>alert(1)</script>', '</note><x>', "a & b 'c' ]]> d", 'é €', '10.36'];

describe('neutral encodings', () => {
  it('JSON: \\uXXXX escapes of names and values read as the same value', () => {
    const value = { note: TEXTS, n: 1, nested: { 'a\\b': 'x"y', list: [true, null, '\\u0041'] } };
    const json = JSON.stringify(value);
    const escaped = unicodeEscapedJson(json);
    expect(escaped).toContain('\\u006e\\u006f\\u0074\\u0065');
    expect(JSON.parse(escaped)).toEqual(value);
  });

  it('XML: numeric character references and CDATA read as the same document', () => {
    const value = Object.fromEntries(TEXTS.map((t, i) => [`f${i}`, t]));
    const xml = writeXml('respon', { ...value, risk_reasons: { name: 'velocity', status: 'ok' } });
    const reference = readXml(xml, 'respon');
    for (const rewrite of [referencedXml, cdataXml]) {
      const text = rewrite(xml);
      expect(text).not.toBe(xml);
      expect(readXml(text, 'respon')).toEqual(reference);
    }
    expect(referencedXml(xml)).toContain('&#76;');
    expect(cdataXml(xml)).toContain('<![CDATA[a & b');
  });

  it('HTML: character references and unquoted or single-quoted attributes read as the same page', () => {
    const inputs = TEXTS.map((t, i) => `<input type="hidden" name="f${i}" value="${escapeHtml(t)}">`).join('\n');
    const page = `<!DOCTYPE html><html><head><title>Pay &amp; go</title></head><body onload="document.forms[0].submit()"><p id="message">E001:Invalid input (note)</p><form name="checkout" method="POST" action="https://gw.example/v1/checkout">${inputs}<input type="hidden" name="empty" value=""></form></body></html>`;
    const form = readCheckoutForm(page);
    const texts = readPageTexts(page);
    for (const rewrite of [referencedHtml, requotedHtml]) {
      const text = rewrite(page);
      expect(text).not.toBe(page);
      expect(readCheckoutForm(text)).toEqual(form);
      expect(readPageTexts(text)).toEqual(texts);
    }
    expect(referencedHtml(page)).toContain('&colon;&sol;&sol;');
    expect(requotedHtml(page)).toContain('type=hidden');
  });
});
