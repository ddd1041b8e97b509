/**
 * CPU per checkout page read (`readCheckoutForm`, parse5 and the DOM's form rules), on the reference gateway's
 * auto-submitting page and on the spec's example page, beside a jsdom document per page (the DOM the reader is
 * compared with in its tests) for scale. Prints one JSON line; writes nothing.
 * `node bin/run-ts.js bench/html.ts`
 */
import { JSDOM } from 'jsdom';
import { readCheckoutForm } from '../core/codecs/html.js';
import { renderHtml } from '../gateway/html.js';
import { exampleValue } from '../test/support/examples.js';

const pages = {
  gateway: renderHtml({
    title: 'Redirecting',
    autoSubmit: true,
    paragraphs: [{ id: 'note', text: 'Redirecting to your bank' }],
    form: {
      name: 'pay',
      method: 'POST',
      action: 'http://127.0.0.1:8080/acs',
      inputs: Array.from({ length: 8 }, (_, i) => ({
        name: `field_${i}`,
        value: `value-${i}`,
        type: 'hidden' as const,
      })),
      buttons: [],
    },
  }),
  specExample: exampleValue('checkout-response.yaml') as string,
};

const { window } = new JSDOM('');
const readers = {
  reader: (html: string) => readCheckoutForm(html),
  jsdomDocument: (html: string) => new window.DOMParser().parseFromString(html, 'text/html').forms.length,
};

/** Microseconds of CPU per call, after a warm-up. */
function cpuPerCall(fn: () => unknown, calls: number): number {
  for (let i = 0; i < calls / 10; i++) fn();
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const used = process.cpuUsage(start);
  return Math.round(((used.user + used.system) / calls) * 10) / 10;
}

const out: Record<string, Record<string, number>> = {};
for (const [page, html] of Object.entries(pages)) {
  out[page] = { bytes: html.length };
  for (const [name, read] of Object.entries(readers))
    out[page][`${name}CpuUs`] = cpuPerCall(() => read(html), name === 'reader' ? 3000 : 300);
}
console.log(JSON.stringify(out));
