/** Reading the gateway's HTML pages in tests (jsdom, kept apart from helpers.ts: only page tests load it). */
import { JSDOM } from 'jsdom';
import type { CheckoutFormModel } from '../../core/model.js';

/** The form model of an HTML page (the kit's CheckoutForm data model). */
export function formModel(
  html: string,
): CheckoutFormModel & { title: string; text: (id: string) => string | undefined } {
  const doc = new JSDOM(html).window.document;
  const form = doc.forms[0];
  const inputs: Record<string, string> = {};
  const inputTypes: Record<string, string> = {};
  const inputOrder: string[] = [];
  for (const el of form ? Array.from(form.querySelectorAll('input')) : []) {
    inputs[el.name] = el.value;
    inputTypes[el.name] = el.type;
    inputOrder.push(el.name);
  }
  const onload = doc.body?.getAttribute('onload') ?? '';
  return {
    forms: doc.forms.length,
    method: form?.getAttribute('method') ?? '',
    action: form?.getAttribute('action') ?? '',
    autoSubmit: /submit\(\)/.test(onload),
    autoSubmitBy: onload ? 'onload' : 'none',
    inputs,
    inputTypes,
    inputOrder,
    title: doc.title,
    text: (id: string) => doc.getElementById(id)?.textContent ?? undefined,
  };
}
