/**
 * Reader of the hosted checkout page: jsdom with no script execution and no resource loading turns the HTML into
 * the CheckoutFormModel (schemas/checkout-form.schema.json). Automatic submission is detected statically: a `body`
 * `onload` handler or an inline `<script>` calling `submit()` or `requestSubmit()` on a form.
 *
 * Pages are parsed by the DOMParser of one jsdom window made with `runScripts` and `resources` unset: a parsed
 * document never runs a script nor loads a resource, and no window is built per page.
 */
import { JSDOM } from 'jsdom';
import type { CheckoutFormModel } from '../model.js';

type Doc = Document;

// A JavaScript string literal ('…' or "…") without escapes of its own quote.
const STR = String.raw`(?<q>['"])((?:(?!\k<q>)[^\\])*)\k<q>`;

/** Expressions that name a form, each with a resolver against the document. */
const FORM_REFERENCES: { pattern: string; resolve(doc: Doc, m: string[]): Element | null | undefined }[] = [
  { pattern: String.raw`document\s*\.\s*forms\s*\[\s*([0-9]+)\s*\]`, resolve: (doc, m) => doc.forms[Number(m[0])] },
  {
    pattern: String.raw`document\s*\.\s*forms\s*\[\s*${STR}\s*\]`,
    resolve: (doc, m) => doc.forms.namedItem(m[1]!) as Element | null,
  },
  {
    pattern: String.raw`document\s*\.\s*forms\s*\.\s*([A-Za-z_$][\w$]*)`,
    resolve: (doc, m) => doc.forms.namedItem(m[0]!) as Element | null,
  },
  {
    pattern: String.raw`document\s*\.\s*getElementById\s*\(\s*${STR}\s*\)`,
    resolve: (doc, m) => doc.getElementById(m[1]!),
  },
  { pattern: String.raw`document\s*\.\s*querySelector\s*\(\s*${STR}\s*\)`, resolve: (doc, m) => safeQuery(doc, m[1]!) },
  {
    pattern: String.raw`document\s*\.\s*getElementsByName\s*\(\s*${STR}\s*\)\s*\[\s*([0-9]+)\s*\]`,
    resolve: (doc, m) => doc.getElementsByName(m[1]!)[Number(m[2])],
  },
  {
    pattern: String.raw`document\s*\.\s*getElementsByTagName\s*\(\s*${STR}\s*\)\s*\[\s*([0-9]+)\s*\]`,
    resolve: (doc, m) => doc.getElementsByTagName(m[1]!)[Number(m[2])],
  },
  // Legacy named access: document.<form name>.
  {
    pattern: String.raw`document\s*\.\s*(?!forms\b|getElement|querySelector)([A-Za-z_$][\w$]*)`,
    resolve: (doc, m) => doc.forms.namedItem(m[0]!) as Element | null,
  },
];

const SUBMIT_CALL = String.raw`\s*\.\s*(?:submit|requestSubmit)\s*\(`;

function safeQuery(doc: Doc, selector: string): Element | null {
  try {
    return doc.querySelector(selector);
  } catch {
    return null;
  }
}

function asForm(el: Element | null | undefined): HTMLFormElement | undefined {
  return el && el.tagName.toLowerCase() === 'form' ? (el as HTMLFormElement) : undefined;
}

/** The form a piece of script submits (`<ref>.submit()`, or `x = <ref>; … x.submit()`), if any. */
function submittedForm(doc: Doc, code: string): HTMLFormElement | undefined {
  for (const ref of FORM_REFERENCES) {
    for (const m of code.matchAll(new RegExp(ref.pattern + SUBMIT_CALL, 'g'))) {
      const form = asForm(ref.resolve(doc, m.slice(1)));
      if (form) return form;
    }
    const assigned = new RegExp(String.raw`([A-Za-z_$][\w$]*)\s*=\s*` + ref.pattern, 'g');
    for (const m of code.matchAll(assigned)) {
      const variable = m[1]!;
      if (!new RegExp(String.raw`(?<![\w$.])${variable.replace(/\$/g, '\\$')}${SUBMIT_CALL}`).test(code)) continue;
      const form = asForm(ref.resolve(doc, m.slice(2)));
      if (form) return form;
    }
  }
  return undefined;
}

/** The submitted value of a form control, as a browser reads it from the markup. */
function controlValue(el: Element): string {
  const tag = el.tagName.toLowerCase();
  if (tag === 'textarea') return el.textContent ?? '';
  if (tag === 'select') {
    const select = el as HTMLSelectElement;
    return select.selectedOptions[0]?.value ?? '';
  }
  return el.getAttribute('value') ?? '';
}

/** The control's type: an input's `type` (default text), `button:<type>` for a button (default submit), else its tag. */
function controlType(el: Element): string {
  const tag = el.tagName.toLowerCase();
  if (tag === 'input') return (el.getAttribute('type') ?? 'text').toLowerCase();
  if (tag === 'button') return `button:${(el.getAttribute('type') ?? 'submit').toLowerCase()}`;
  return tag;
}

/** Controls that submit the form when pressed (their name and value go with the inputs). */
const SUBMITTERS = new Set(['submit', 'image', 'button:submit']);
/** Controls whose value is not form data unless pressed. */
const NOT_DATA = new Set(['submit', 'image', 'reset', 'button', 'button:submit', 'button:reset', 'button:button']);

/**
 * Pages one window's DOMParser reads before a fresh window takes over. A jsdom window keeps every document parsed in
 * it, so each page costs more than the one before (3,000 pages in one window: 11.6 ms of CPU a page on average,
 * against 1.9 to 2.4 ms with a window per 50 to 200) and holds its elements until the window goes; a closed window
 * still holds about half a megabyte. 50 pages a window keeps the time per page flat and the pages held to a few MB.
 */
const PAGES_PER_WINDOW = 50;

let parser: { window: { close(): void }; domParser: DOMParser; pages: number } | undefined;

function parseHtml(html: string): Doc {
  if (!parser || parser.pages >= PAGES_PER_WINDOW) {
    parser?.window.close();
    const { window } = new JSDOM('', { runScripts: undefined, resources: undefined });
    parser = { window, domParser: new window.DOMParser(), pages: 0 };
  }
  parser.pages++;
  return parser.domParser.parseFromString(html, 'text/html');
}

/** Read a checkout page into the form data model. */
export function readCheckoutForm(html: string): CheckoutFormModel {
  const doc = parseHtml(html);
  const onload = doc.body?.getAttribute('onload') ?? '';
  const byOnload = onload ? submittedForm(doc, onload) : undefined;
  let byScript: HTMLFormElement | undefined;
  if (!byOnload) {
    for (const script of doc.querySelectorAll('script:not([src])')) {
      byScript = submittedForm(doc, script.textContent ?? '');
      if (byScript) break;
    }
  }
  const form = byOnload ?? byScript ?? doc.forms[0];
  // Maps, then Object.fromEntries: an input named `__proto__` stays an ordinary own property.
  const inputs = new Map<string, string>();
  const inputTypes = new Map<string, string>();
  const inputOrder: string[] = [];
  const buttons: { name: string; value: string }[] = [];
  for (const el of form ? Array.from(form.elements) : []) {
    const name = el.getAttribute('name');
    const type = controlType(el);
    if (!name || !['input', 'textarea', 'select', 'button'].includes(el.tagName.toLowerCase())) continue;
    if (SUBMITTERS.has(type)) buttons.push({ name, value: el.getAttribute('value') ?? '' });
    if (NOT_DATA.has(type)) continue; // sent only when pressed
    inputOrder.push(name);
    if (inputs.has(name)) continue; // a repeated name keeps its first value; inputOrder shows the repeat
    inputs.set(name, controlValue(el));
    inputTypes.set(name, type);
  }
  const model: CheckoutFormModel = {
    forms: doc.forms.length,
    method: form?.getAttribute('method') ?? '',
    action: form?.getAttribute('action') ?? '',
    autoSubmit: Boolean(byOnload ?? byScript),
    autoSubmitBy: byOnload ? 'onload' : byScript ? 'script' : 'none',
    inputs: Object.fromEntries(inputs),
    inputTypes: Object.fromEntries(inputTypes),
    inputOrder,
    buttons,
  };
  return model;
}
