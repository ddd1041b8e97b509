/**
 * Reader of the hosted checkout page: parse5 (the WHATWG HTML parsing algorithm, scripting disabled as in a parsed
 * document that runs nothing) builds a plain node tree, which is read into the CheckoutFormModel
 * (schemas/checkout-form.schema.json) with the DOM's rules for forms: `document.forms`, a control's form owner, the
 * form's listed elements, a select's selected option. Nothing on the page runs or loads: parse5 only builds the tree.
 * Automatic submission is detected statically: a `body` `onload` handler or an inline `<script>` calling `submit()` or
 * `requestSubmit()` on a form; a `querySelector` in such a script is matched with css-select.
 */
import { selectAll } from 'css-select';
import { type AnyNode, type Document, type Element, isTag, isText } from 'domhandler';
import { parse } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import type { CheckoutFormModel } from '../model.js';

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** The parts of a parsed page the reader asks about, gathered in one walk in tree order. */
interface Doc {
  root: Document;
  body: Element | undefined;
  /** `document.forms`. */
  forms: Element[];
  /** Every element, in tree order. */
  elements: Element[];
  /** The first element of each id. */
  byId: Map<string, Element>;
  /** Listed form controls (`form.elements` of some form, input type image aside), each with its nearest form ancestor. */
  controls: { el: Element; ancestorForm: Element | undefined }[];
}

const isHtml = (el: Element, name: string): boolean => el.name === name && el.namespace === HTML_NS;

/** An attribute's value (attribute names of HTML elements are lowercase in the tree), or null. */
function attr(el: Element, name: string): string | null {
  return Object.hasOwn(el.attribs, name) ? el.attribs[name]! : null;
}

/** The text of the text nodes under `node`, optionally leaving out those inside scripts (no recursion: pages are untrusted). */
function textOf(node: Element, skipScripts = false): string {
  let text = '';
  const stack: AnyNode[] = [...node.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (isText(n)) text += n.data;
    else if (isTag(n) && !(skipScripts && n.name === 'script'))
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return text;
}

/** Elements a form lists as its controls (`form.elements`). */
const LISTED = new Set(['button', 'fieldset', 'input', 'object', 'output', 'select', 'textarea']);

function parseHtml(html: string): Doc {
  const root = parse(html, { treeAdapter: adapter, scriptingEnabled: false }) as Document;
  const doc: Doc = { root, body: undefined, forms: [], elements: [], byId: new Map(), controls: [] };
  // Pre-order walk without recursion (pages are untrusted and may nest deeply), with each node's nearest form ancestor.
  const stack: { node: AnyNode; form: Element | undefined }[] = [...root.children]
    .reverse()
    .map((node) => ({ node, form: undefined }));
  while (stack.length) {
    const { node: n, form } = stack.pop()!;
    // Text, comments, and a template's content (a fragment of its own, outside the document's tree) are passed over.
    if (!isTag(n)) continue;
    doc.elements.push(n);
    const id = attr(n, 'id');
    if (id && !doc.byId.has(id)) doc.byId.set(id, n);
    if (n.namespace === HTML_NS) {
      if (n.name === 'form') doc.forms.push(n);
      else if (LISTED.has(n.name) && !(n.name === 'input' && attr(n, 'type')?.toLowerCase() === 'image'))
        doc.controls.push({ el: n, ancestorForm: form });
      if (
        !doc.body &&
        (n.name === 'body' || n.name === 'frameset') &&
        n.parent &&
        isTag(n.parent) &&
        isHtml(n.parent, 'html')
      )
        doc.body = n;
    }
    const inner = isHtml(n, 'form') ? n : form;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push({ node: n.children[i]!, form: inner });
  }
  return doc;
}

/** `document.forms.namedItem(key)`: the first form whose id or name is `key`. */
function namedForm(doc: Doc, key: string): Element | undefined {
  return key ? doc.forms.find((f) => attr(f, 'id') === key || attr(f, 'name') === key) : undefined;
}

/** `document.getElementsByTagName(name)`: an HTML element's name matched in lowercase, any other's exactly. */
function byTagName(doc: Doc, name: string): Element[] {
  if (name === '*') return doc.elements;
  const lower = name.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return doc.elements.filter((el) => (el.namespace === HTML_NS ? el.name === lower : el.name === name));
}

// A JavaScript string literal ('…' or "…") without escapes of its own quote.
const STR = String.raw`(?<q>['"])((?:(?!\k<q>)[^\\])*)\k<q>`;

/** Expressions that name a form, each with a resolver against the document. */
const FORM_REFERENCES: { pattern: string; resolve(doc: Doc, m: string[]): Element | null | undefined }[] = [
  { pattern: String.raw`document\s*\.\s*forms\s*\[\s*([0-9]+)\s*\]`, resolve: (doc, m) => doc.forms[Number(m[0])] },
  {
    pattern: String.raw`document\s*\.\s*forms\s*\[\s*${STR}\s*\]`,
    resolve: (doc, m) => namedForm(doc, m[1]!),
  },
  {
    pattern: String.raw`document\s*\.\s*forms\s*\.\s*([A-Za-z_$][\w$]*)`,
    resolve: (doc, m) => namedForm(doc, m[0]!),
  },
  {
    pattern: String.raw`document\s*\.\s*getElementById\s*\(\s*${STR}\s*\)`,
    resolve: (doc, m) => (m[1] ? doc.byId.get(m[1]) : undefined),
  },
  { pattern: String.raw`document\s*\.\s*querySelector\s*\(\s*${STR}\s*\)`, resolve: (doc, m) => safeQuery(doc, m[1]!) },
  {
    pattern: String.raw`document\s*\.\s*getElementsByName\s*\(\s*${STR}\s*\)\s*\[\s*([0-9]+)\s*\]`,
    resolve: (doc, m) => doc.elements.filter((el) => attr(el, 'name') === m[1])[Number(m[2])],
  },
  {
    pattern: String.raw`document\s*\.\s*getElementsByTagName\s*\(\s*${STR}\s*\)\s*\[\s*([0-9]+)\s*\]`,
    resolve: (doc, m) => byTagName(doc, m[1]!)[Number(m[2])],
  },
  // Legacy named access: document.<form name>.
  {
    pattern: String.raw`document\s*\.\s*(?!forms\b|getElement|querySelector)([A-Za-z_$][\w$]*)`,
    resolve: (doc, m) => namedForm(doc, m[0]!),
  },
];

const SUBMIT_CALL = String.raw`\s*\.\s*(?:submit|requestSubmit)\s*\(`;

/** `document.querySelector(selector)`; a selector that does not parse finds nothing (the DOM would throw). */
function safeQuery(doc: Doc, selector: string): Element | undefined {
  try {
    return selectAll<AnyNode, Element>(selector, doc.root)[0];
  } catch {
    return undefined;
  }
}

function asForm(el: Element | null | undefined): Element | undefined {
  return el && isHtml(el, 'form') ? el : undefined;
}

/** The form a piece of script submits (`<ref>.submit()`, or `x = <ref>; … x.submit()`), if any. */
function submittedForm(doc: Doc, code: string): Element | undefined {
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

/** `form.elements`: the listed controls whose form owner is `form` (named by their `form` attribute, else their nearest form ancestor). */
function formElements(doc: Doc, form: Element): Element[] {
  return doc.controls
    .filter(({ el, ancestorForm }) => {
      const named = attr(el, 'form');
      return (named === null ? ancestorForm : named ? asForm(doc.byId.get(named)) : undefined) === form;
    })
    .map(({ el }) => el);
}

/** The rules for parsing non-negative integers (a select's `size`): leading ASCII whitespace, digits; else null. */
function nonNegativeInteger(text: string): number | null {
  const m = /^[\t\n\f\r ]*([+-]?[0-9]+)/.exec(text);
  const n = m ? Number.parseInt(m[1]!, 10) : Number.NaN;
  return Number.isNaN(n) || n < 0 ? null : n === 0 ? 0 : n;
}

/**
 * The option a select submits: with `multiple`, the first option marked `selected`; else the last marked one, or
 * when none is marked and the select shows one row, the first option not disabled (itself or by its optgroup).
 */
function selectedOption(select: Element): Element | undefined {
  const options: Element[] = [];
  for (const child of select.children) {
    if (!isTag(child)) continue;
    if (isHtml(child, 'option')) options.push(child);
    else if (isHtml(child, 'optgroup'))
      for (const inner of child.children) if (isTag(inner) && isHtml(inner, 'option')) options.push(inner);
  }
  const marked = options.filter((o) => attr(o, 'selected') !== null);
  const multiple = attr(select, 'multiple') !== null;
  if (multiple) return marked[0];
  if (marked.length) return marked[marked.length - 1];
  const size = attr(select, 'size');
  const rows = (size === null ? null : nonNegativeInteger(size)) ?? 1;
  if (rows !== 1) return undefined;
  return options.find(
    (o) =>
      attr(o, 'disabled') === null &&
      !(o.parent && isTag(o.parent) && isHtml(o.parent, 'optgroup') && attr(o.parent, 'disabled') !== null),
  );
}

/** An option's value: its `value` attribute, else its text with ASCII whitespace stripped and collapsed. */
function optionValue(option: Element): string {
  return (
    attr(option, 'value') ??
    textOf(option, true)
      .replace(/[\t\n\f\r ]+/g, ' ')
      .replace(/^ | $/g, '')
  );
}

/** The submitted value of a form control, as a browser reads it from the markup. */
function controlValue(el: Element): string {
  if (el.name === 'textarea') return textOf(el);
  if (el.name === 'select') {
    const option = selectedOption(el);
    return option ? optionValue(option) : '';
  }
  return attr(el, 'value') ?? '';
}

/** The control's type: an input's `type` (default text), `button:<type>` for a button (default submit), else its tag. */
function controlType(el: Element): string {
  if (el.name === 'input') return (attr(el, 'type') ?? 'text').toLowerCase();
  if (el.name === 'button') return `button:${(attr(el, 'type') ?? 'submit').toLowerCase()}`;
  return el.name;
}

/** Controls that submit the form when pressed (their name and value go with the inputs). */
const SUBMITTERS = new Set(['submit', 'image', 'button:submit']);
/** Controls whose value is not form data unless pressed. */
const NOT_DATA = new Set(['submit', 'image', 'reset', 'button', 'button:submit', 'button:reset', 'button:button']);

/** Read a checkout page into the form data model. */
export function readCheckoutForm(html: string): CheckoutFormModel {
  const doc = parseHtml(html);
  const onload = (doc.body && attr(doc.body, 'onload')) ?? '';
  const byOnload = onload ? submittedForm(doc, onload) : undefined;
  let byScript: Element | undefined;
  if (!byOnload) {
    for (const script of doc.elements) {
      if (script.name !== 'script' || attr(script, 'src') !== null) continue;
      byScript = submittedForm(doc, textOf(script));
      if (byScript) break;
    }
  }
  const form = byOnload ?? byScript ?? doc.forms[0];
  // Maps, then Object.fromEntries: an input named `__proto__` stays an ordinary own property.
  const inputs = new Map<string, string>();
  const inputTypes = new Map<string, string>();
  const inputOrder: string[] = [];
  const buttons: { name: string; value: string }[] = [];
  for (const el of form ? formElements(doc, form) : []) {
    const name = attr(el, 'name');
    const type = controlType(el);
    if (!name || !['input', 'textarea', 'select', 'button'].includes(el.name)) continue;
    if (SUBMITTERS.has(type)) buttons.push({ name, value: attr(el, 'value') ?? '' });
    if (NOT_DATA.has(type)) continue; // sent only when pressed
    inputOrder.push(name);
    if (inputs.has(name)) continue; // a repeated name keeps its first value; inputOrder shows the repeat
    inputs.set(name, controlValue(el));
    inputTypes.set(name, type);
  }
  const model: CheckoutFormModel = {
    forms: doc.forms.length,
    method: (form && attr(form, 'method')) ?? '',
    action: (form && attr(form, 'action')) ?? '',
    autoSubmit: Boolean(byOnload ?? byScript),
    autoSubmitBy: byOnload ? 'onload' : byScript ? 'script' : 'none',
    inputs: Object.fromEntries(inputs),
    inputTypes: Object.fromEntries(inputTypes),
    inputOrder,
    buttons,
  };
  return model;
}

/** The text of a page's `<title>` and of each element with an id (first element of each id), as read by parse5. */
export function readPageTexts(html: string): { title: string | undefined; byId: Record<string, string> } {
  const doc = parseHtml(html);
  const title = doc.elements.find((el) => isHtml(el, 'title'));
  const byId = new Map<string, string>();
  for (const [id, el] of doc.byId) byId.set(id, textOf(el, true).trim());
  return { title: title ? textOf(title).trim() : undefined, byId: Object.fromEntries(byId) };
}

/**
 * The text a page shows, as read by parse5 (character references decoded, scripts and styles left out): each text
 * node trimmed, the empty ones dropped, in tree order.
 */
export function readPageTextNodes(html: string): string[] {
  const doc = parseHtml(html);
  const out: string[] = [];
  const stack: AnyNode[] = [...doc.root.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (isText(n)) {
      const text = n.data.trim();
      if (text) out.push(text);
    } else if (isTag(n) && n.name !== 'script' && n.name !== 'style')
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return out;
}
