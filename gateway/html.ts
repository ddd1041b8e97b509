/** The gateway's HTML pages as small data models, rendered with every value escaped. */

/** One input of a form. */
export interface HtmlInput {
  name: string;
  value: string;
  type: 'hidden' | 'text' | 'password';
  label?: string;
}

/** A submit button; its name and value travel with the form. */
export interface HtmlButton {
  name: string;
  value: string;
  label: string;
}

/** A form of a page. */
export interface HtmlForm {
  name: string;
  method: string;
  action: string;
  inputs: HtmlInput[];
  buttons: HtmlButton[];
}

/** A page: title, text paragraphs (optionally with an id) and at most one form. */
export interface HtmlPage {
  title: string;
  /** Submit the form on load (`<body onload>`), with a `<noscript>` button for browsers without script. */
  autoSubmit: boolean;
  paragraphs: { id?: string; text: string }[];
  form?: HtmlForm;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for an HTML element body or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : text;
}

function renderForm(form: HtmlForm, autoSubmit: boolean): string[] {
  const lines = [
    `<form name="${escapeHtml(form.name)}" method="${escapeHtml(form.method)}" action="${escapeHtml(form.action)}">`,
  ];
  for (const input of form.inputs) {
    const field = `<input type="${input.type}" name="${escapeHtml(input.name)}" value="${escapeHtml(input.value)}">`;
    lines.push(input.label ? `<label>${escapeHtml(input.label)} ${field}</label>` : field);
  }
  for (const b of form.buttons)
    lines.push(
      `<button type="submit" name="${escapeHtml(b.name)}" value="${escapeHtml(b.value)}">${escapeHtml(b.label)}</button>`,
    );
  if (autoSubmit) lines.push('<noscript><button type="submit">Continue</button></noscript>');
  lines.push('</form>');
  return lines;
}

/** The page as an HTML document. */
export function renderHtml(page: HtmlPage): string {
  const lines = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(page.title)}</title>`,
    '</head>',
    page.autoSubmit ? '<body onload="document.forms[0].submit()">' : '<body>',
    `<h1>${escapeHtml(page.title)}</h1>`,
  ];
  for (const p of page.paragraphs)
    lines.push(p.id ? `<p id="${escapeHtml(p.id)}">${escapeHtml(p.text)}</p>` : `<p>${escapeHtml(p.text)}</p>`);
  if (page.form) lines.push(...renderForm(page.form, page.autoSubmit));
  lines.push('</body>', '</html>', '');
  return lines.join('\n');
}
