import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { readCheckoutForm } from '../../core/codecs/html.js';
import { exampleValue } from '../support/examples.js';

const page = (body: string, bodyAttrs = '') =>
  `<!DOCTYPE html><html><head><title>t</title></head><body ${bodyAttrs}>${body}</body></html>`;
const form = (attrs: string, inputs = '<input type="hidden" name="a" value="1">') => `<form ${attrs}>${inputs}</form>`;

describe('readCheckoutForm', () => {
  it('reads the spec example page into the spec example model', () => {
    const model = readCheckoutForm(exampleValue('checkout-response.yaml'));
    const { inputOrder, buttons, ...rest } = model;
    expect(rest).toEqual(exampleValue('checkout-form.yaml'));
    expect(buttons).toEqual([]);
    expect(inputOrder).toEqual(Object.keys(model.inputs));
  });

  it.each([
    [
      'body onload, document.forms[0]',
      page(form('method="POST" action="/x"'), 'onload="document.forms[0].submit()"'),
      'onload',
    ],
    [
      'body onload, requestSubmit by id',
      page(form('id="f" method="POST" action="/x"'), `onload="document.getElementById('f').requestSubmit()"`),
      'onload',
    ],
    [
      'script, forms by name',
      page(`${form('name="pay" method="POST" action="/x"')}<script>document.forms['pay'].submit();</script>`),
      'script',
    ],
    [
      'script, forms.name',
      page(
        `${form('name="pay" method="POST" action="/x"')}<script>window.onload = function () { document.forms.pay.submit(); };</script>`,
      ),
      'script',
    ],
    [
      'script, querySelector',
      page(`${form('class="c" method="POST" action="/x"')}<script>document.querySelector("form.c").submit()</script>`),
      'script',
    ],
    [
      'script, variable',
      page(
        `${form('id="f" method="POST" action="/x"')}<script>var f = document.getElementById("f");\nf.requestSubmit();</script>`,
      ),
      'script',
    ],
    [
      'script, legacy named access',
      page(`${form('name="pay" method="POST" action="/x"')}<script>document.pay.submit()</script>`),
      'script',
    ],
  ])('detects automatic submission: %s', (_, html, by) => {
    const model = readCheckoutForm(html);
    expect(model).toMatchObject({
      forms: 1,
      method: 'POST',
      action: '/x',
      autoSubmit: true,
      autoSubmitBy: by,
      inputs: { a: '1' },
    });
  });

  it('reports no automatic submission when nothing submits the form on load', () => {
    const html = page(
      `${form('method="POST" action="/x"')}<script src="submit.js"></script><button onclick="document.forms[0].submit()">Pay</button>`,
      'onload="alert(1)"',
    );
    expect(readCheckoutForm(html)).toMatchObject({
      forms: 1,
      autoSubmit: false,
      autoSubmitBy: 'none',
      method: 'POST',
      action: '/x',
    });
  });

  it('takes the submitted form when the page has several', () => {
    const html = page(
      `${form('name="a" method="GET" action="/first"')}${form('name="b" method="POST" action="/second"', '<input name="z" value="2">')}<script>document.forms[1].submit()</script>`,
    );
    expect(readCheckoutForm(html)).toMatchObject({
      forms: 2,
      method: 'POST',
      action: '/second',
      inputs: { z: '2' },
      autoSubmitBy: 'script',
    });
  });

  it('reads values unescaped and exactly, with repeats kept in inputOrder', () => {
    const hostile = '"><script>alert(1)</script></note><x>';
    const escaped = hostile.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const html = page(
      form(
        'method="POST" action="/x"',
        `<input type="hidden" name="note" value="${escaped}"><input name="note" value="second"><textarea name="t">a &amp; b</textarea><input name="__proto__" value="p">`,
      ),
    );
    const model = readCheckoutForm(html);
    expect(model.inputs.note).toBe(hostile);
    expect(model.inputOrder).toEqual(['note', 'note', 't', '__proto__']);
    expect(model.inputs.t).toBe('a & b');
    expect(Object.getPrototypeOf(model.inputs)).toBe(Object.prototype);
    expect(Object.keys(model.inputs)).toContain('__proto__');
    expect(model.inputTypes).toMatchObject({ note: 'hidden', t: 'textarea' });
  });

  it('runs no script and loads no resource', async () => {
    let hits = 0;
    const server = http.createServer((_, res) => {
      hits++;
      res.end('');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const html = page(
        `${form('method="POST" action="/x"')}<img src="http://127.0.0.1:${port}/img"><script src="http://127.0.0.1:${port}/s.js"></script><script>document.forms[0].innerHTML = ''; document.forms[0].submit();</script>`,
        `style="background:url(http://127.0.0.1:${port}/bg)"`,
      );
      const model = readCheckoutForm(html);
      await new Promise((r) => setTimeout(r, 100));
      expect(model.inputs).toEqual({ a: '1' }); // the inline script did not run
      expect(model.autoSubmitBy).toBe('script');
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });

  it('lists submit buttons apart from the inputs, as a shopper would press them', () => {
    const html = page(
      form(
        'method="POST" action="/pay"',
        '<input name="a" value="1"><input type="submit" name="go" value="Pay"><button name="alt" value="2">Other</button><button type="button" name="x">x</button><input type="reset" name="r">',
      ),
    );
    const model = readCheckoutForm(html);
    expect(model.inputs).toEqual({ a: '1' });
    expect(model.inputOrder).toEqual(['a']);
    expect(model.buttons).toEqual([
      { name: 'go', value: 'Pay' },
      { name: 'alt', value: '2' },
    ]);
  });

  it('reads a page without a form or with a form missing attributes', () => {
    expect(readCheckoutForm('<p>no form</p>')).toEqual({
      forms: 0,
      method: '',
      action: '',
      autoSubmit: false,
      autoSubmitBy: 'none',
      inputs: {},
      inputTypes: {},
      inputOrder: [],
      buttons: [],
    });
    expect(readCheckoutForm(page('<form><input name="a" value="1"></form>'))).toMatchObject({
      forms: 1,
      method: '',
      action: '',
    });
  });
});

/**
 * What a DOM says the first form submits: jsdom (scripts off) as the oracle of `document.forms`, form owners,
 * `form.elements` and `select.selectedOptions`, independent of the reader's parser and tree.
 */
function domForm(html: string) {
  const doc = new JSDOM(html).window.document;
  const form = doc.forms[0];
  const controls = form
    ? Array.from(form.elements).flatMap((el) => {
        const name = el.getAttribute('name');
        const tag = el.tagName.toLowerCase();
        if (!name || !['input', 'textarea', 'select', 'button'].includes(tag)) return [];
        const value =
          tag === 'textarea'
            ? (el.textContent ?? '')
            : tag === 'select'
              ? ((el as HTMLSelectElement).selectedOptions[0]?.value ?? '')
              : (el.getAttribute('value') ?? '');
        return [{ name, tag, type: el.getAttribute('type')?.toLowerCase(), value }];
      })
    : [];
  return { forms: doc.forms.length, action: form?.getAttribute('action') ?? '', controls };
}

/** The same facts from the reader's model. */
function readerForm(html: string) {
  const m = readCheckoutForm(html);
  return { forms: m.forms, action: m.action, inputs: m.inputs, buttons: m.buttons, inputOrder: m.inputOrder };
}

/** The reader's model as the oracle's controls make it (first value of a name, buttons apart). */
function expectedFrom(dom: ReturnType<typeof domForm>) {
  const inputs: Record<string, string> = {};
  const inputOrder: string[] = [];
  const buttons: { name: string; value: string }[] = [];
  for (const c of dom.controls) {
    const type = c.tag === 'input' ? (c.type ?? 'text') : c.tag === 'button' ? `button:${c.type ?? 'submit'}` : c.tag;
    if (['submit', 'button:submit'].includes(type)) buttons.push({ name: c.name, value: c.value });
    if (['submit', 'image', 'reset', 'button', 'button:submit', 'button:reset', 'button:button'].includes(type))
      continue;
    inputOrder.push(c.name);
    if (!(c.name in inputs)) inputs[c.name] = c.value;
  }
  return { forms: dom.forms, action: dom.action, inputs, buttons, inputOrder };
}

/** Markup around forms that the DOM's form rules treat differently: ownership, templates, noscript, tables, selects. */
const fragment: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(
      '<input name="a" value="1">',
      '<input name="a" value="2" form="f2">',
      '<input name="b" value="x" form="">',
      '<input name="c" value="y" form="nope">',
      '<input type="image" name="img" value="i">',
      '<input type="SUBMIT" name="go" value="Pay">',
      '<input type="Hidden" name="h" value="&amp;&quot;">',
      '<button name="bt" value="v">B</button>',
      '<button type="reset" name="r">R</button>',
      '<textarea name="t">\nline &amp; more</textarea>',
      '<select name="s"><option>  one\n two </option><option selected value="2">two</option><option selected>three</option></select>',
      '<select name="s2"><optgroup disabled><option>no</option></optgroup><option disabled>nope</option><option>yes<script>x</script></option></select>',
      '<select name="s3" multiple><option>a</option><option selected>b</option><option selected>c</option></select>',
      '<select name="s4" size="3"><option>a</option></select>',
      '<select name="s5" size=" 1x"><option value="v5">a</option></select>',
      '<fieldset name="fs"><input name="in-fs" value="f"></fieldset>',
      '<output name="o">o</output>',
      '<p id="f2">not a form</p>',
      '',
    ),
    fc
      .tuple(
        fc.constantFrom('form', 'div', 'template', 'noscript', 'table', 'svg', 'fieldset'),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.constantFrom('', ' id="f2"', ' action="/inner" id="f2"'),
      )
      .map(([tag, children, attrs]) => `<${tag}${tag === 'form' ? attrs : ''}>${children.join('')}</${tag}>`),
  ),
})).node;

describe('readCheckoutForm against a DOM (jsdom, scripts off)', () => {
  // 300 generated pages, each parsed by the reader and by jsdom: a few seconds alone, more beside the other worker's files.
  it('finds the forms, form owners, controls and selected options a DOM finds, on generated pages', {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 5 }), (parts) => {
        const html = page(`<form action="/outer">${parts.join('')}</form>${parts.slice(1).join('')}`);
        expect(readerForm(html)).toEqual(expectedFrom(domForm(html)));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("leaves a template's content out of the document, as the DOM does", () => {
    const html = page(
      `<template><form action="/t"><input name="t" value="1"></form></template>${form('action="/real"')}<script>document.querySelector("form").submit()</script>`,
    );
    expect(readCheckoutForm(html)).toMatchObject({
      forms: 1,
      action: '/real',
      autoSubmitBy: 'script',
      inputs: { a: '1' },
    });
    expect(readerForm(html)).toEqual(expectedFrom(domForm(html)));
  });
});

describe('the HTML reader thread (core/codecs/html-reader.ts)', () => {
  it('reads pages into the same model as readCheckoutForm does in the calling thread', async () => {
    const { createHtmlReader } = await import('../../core/codecs/html-reader.js');
    const reader = createHtmlReader();
    try {
      const pages = [
        exampleValue('checkout-response.yaml'),
        page(`${form('name="pay" method="POST" action="/x"')}<script>document.pay.submit()</script>`),
        '<p>no form</p>',
        page(
          form(
            'method="POST" action="/x"',
            '<input name="__proto__" value="1"><input name="n" value="&quot;&gt;&lt;script&gt;">',
          ),
        ),
      ];
      const models = await Promise.all(pages.map((p) => reader.read(p)));
      expect(models).toEqual(pages.map((p) => readCheckoutForm(p)));
    } finally {
      await reader.close();
    }
    // After close, pages are read in the calling thread.
    expect(await reader.read('<p>no form</p>')).toEqual(readCheckoutForm('<p>no form</p>'));
  }, 30_000);
});
