/**
 * Reading the target's answers the way discovery needs them: whether an operation did its work or refused, in
 * which form (an HTTP error, a failure in a 200 body, a failed payout), with which `<code>:<message>`, and the
 * shape of an error body as a template of the profile format (`{code}`, `{message}`, `{httpStatus}`,
 * `{request.<field>}`).
 */
import { readPageTexts } from '../core/codecs/html.js';
import type { Exchange, OperationKey } from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import type { SpecModel } from '../core/spec/load.js';
import { selectionResults } from '../core/spec/operations.js';

/** An answer as discovery reads it. */
export interface Answer {
  status: number;
  /** Media type without parameters, lower case. */
  contentType: string;
  format: 'json' | 'xml' | 'html' | 'other' | 'empty';
  /** JSON object or XML root's children. */
  body?: Record<string, unknown>;
  /** XML root element. */
  root?: string;
  /** HTML page: title and element texts by id, and the form's inputs when it holds one. */
  page?: { title: string | undefined; byId: Record<string, string>; inputs?: Record<string, string>; forms: number };
  text: string;
}

/** The answer of an exchange, or undefined when none came. */
export function answerOf(x: Exchange): Answer | undefined {
  const r = x.response;
  if (!r) return undefined;
  const contentType = (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const d = r.decoded;
  const base = { status: r.status, contentType, text: r.bodyText };
  if (d.kind === 'json')
    return d.value && typeof d.value === 'object' && !Array.isArray(d.value)
      ? { ...base, format: 'json', body: d.value as Record<string, unknown> }
      : { ...base, format: 'json' };
  if (d.kind === 'xml') return { ...base, format: 'xml', body: d.value, root: d.root };
  if (d.kind === 'empty') return { ...base, format: 'empty' };
  if (d.kind === 'html' || /html/.test(contentType) || /^\s*<(!doctype html|html)/i.test(r.bodyText)) {
    const texts = readPageTexts(r.bodyText);
    const form = d.kind === 'html' ? d.form : undefined;
    return {
      ...base,
      format: 'html',
      page: { ...texts, forms: form?.forms ?? 0, ...(form?.forms ? { inputs: form.inputs } : {}) },
    };
  }
  // An answer the operation's format did not fit (a JSON error of an XML operation): read by its content.
  const t = r.bodyText.trim();
  if (t.startsWith('{'))
    try {
      const v = JSON.parse(t);
      if (v && typeof v === 'object' && !Array.isArray(v)) return { ...base, format: 'json', body: v };
    } catch {
      // not JSON
    }
  return { ...base, format: 'other' };
}

/** A `<code>:<message>` value. */
export interface CodeMessage {
  code: string;
  message: string;
}

const CODE_MESSAGE = /^([^:\s]+):([^\r\n]*)$/;

/** The first `<code>:<message>` string of a value, depth first in key order. */
function findCodeMessage(value: unknown): CodeMessage | undefined {
  if (typeof value === 'string') {
    const m = CODE_MESSAGE.exec(value);
    return m ? { code: m[1]!, message: m[2]! } : undefined;
  }
  if (value && typeof value === 'object')
    for (const v of Object.values(value)) {
      const hit = findCodeMessage(v);
      if (hit) return hit;
    }
  return undefined;
}

/** The `<code>:<message>` an answer carries (a refusal's, a payment's `result_info`, a failed payout's fields). */
export function codeMessageOf(a: Answer): CodeMessage | undefined {
  const b = a.body;
  if (b && typeof b.failure_type === 'string' && b.failure_type && typeof b.failure_reason === 'string')
    return { code: b.failure_type, message: b.failure_reason };
  for (const field of ['return_message', 'result_info', 'refund_message', 'error_message'])
    if (b && typeof b[field] === 'string') {
      const m = CODE_MESSAGE.exec(b[field] as string);
      if (m) return { code: m[1]!, message: m[2]! };
    }
  if (b) return findCodeMessage(b);
  if (a.page) {
    for (const text of [...Object.values(a.page.byId), a.page.title ?? '']) {
      const m = CODE_MESSAGE.exec(text);
      if (m) return { code: m[1]!, message: m[2]! };
    }
  }
  return undefined;
}

/** Whether an answer is the operation doing its work (a payment made, a batch processed, a page, a payout). */
export function didWork(spec: SpecModel, work: Profile, op: OperationKey, a: Answer | undefined): boolean {
  if (!a || a.status < 200 || a.status >= 300) return false;
  const b = a.body;
  const model = spec.operations.get(op)!;
  const failedEnvelope =
    b !== undefined &&
    typeof b.return_status === 'string' &&
    b.return_status !== work.statusValues.return_status.success &&
    b.return_status !== '1';
  switch (op) {
    case 'authoriseDirect':
      return a.format === 'xml' && typeof b?.transaction_id === 'string' && b.transaction_id !== '';
    case 'authoriseApm':
      return a.format === 'xml' && typeof b?.issuer_url === 'string' && b.issuer_url !== '';
    case 'checkout':
      return a.format === 'html' && (a.page?.forms ?? 0) > 0 && Object.keys(a.page?.inputs ?? {}).length > 0;
    case 'payout':
      return a.format === 'json' && typeof b?.transaction_id === 'string' && b.transaction_id !== '';
    default: {
      // A selection answers its records in its one array (orders_list, refund_orders); a batch in its order array.
      const results = selectionResults(spec, op);
      if (results !== undefined) return a.format === 'json' && Array.isArray(b?.[results]) && !failedEnvelope;
      const list = model.batch ? b?.[model.batch.orders] : undefined;
      return a.format === 'json' && Array.isArray(list) && (list.length > 0 || !failedEnvelope);
    }
  }
}

/** How a request was refused. */
export interface Refusal {
  form: 'httpError' | 'statusInBody' | 'failureType' | 'httpFailureType';
  status: number;
  format: Answer['format'];
  contentType: string;
  code?: string;
  message?: string;
  answer: Answer;
  /**
   * No answer came (a time-out, a connection lost): not a refusal of any kind. It is not the work done either, so it
   * stands where a refusal would; nothing reads it as a kind, a form or an error body (`isRefusal`).
   */
  lost?: true;
}

/** Whether a refusal form carries the kind's HTTP status (an HTTP error), not HTTP 200 with the refusal in the body. */
export function isHttpForm(form: Refusal['form']): boolean {
  return form === 'httpError' || form === 'httpFailureType';
}

/** Whether a request was refused by an answer (not merely left without one). */
export function isRefusal(r: Refusal | undefined): r is Refusal {
  return r !== undefined && !r.lost;
}

/** The refusal an exchange is, or undefined when the operation did its work (or nothing answered). */
export function refusalOf(spec: SpecModel, work: Profile, op: OperationKey, x: Exchange): Refusal | undefined {
  const a = answerOf(x);
  // No answer (a time-out, a reset connection) is neither the work done nor a refusal of any kind: marked lost.
  if (!a)
    return {
      form: 'httpError',
      status: 0,
      format: 'empty',
      contentType: '',
      answer: { status: 0, contentType: '', format: 'empty', text: '' },
      lost: true,
    };
  if (didWork(spec, work, op, a)) return undefined;
  const cm = codeMessageOf(a);
  // A payout's failure fields carried by an HTTP error answer are their own form (httpFailureType).
  const payoutFailure = op === 'payout' && typeof a.body?.failure_type === 'string' && a.body.failure_type !== '';
  const form =
    a.status >= 300
      ? payoutFailure
        ? 'httpFailureType'
        : 'httpError'
      : payoutFailure
        ? 'failureType'
        : 'statusInBody';
  return {
    form,
    status: a.status,
    format: a.format,
    contentType: a.contentType,
    ...(cm ? { code: cm.code, message: cm.message } : {}),
    answer: a,
  };
}

/** The same refusal twice: same status, form and code. */
export function sameRefusal(a: Refusal | undefined, b: Refusal | undefined): boolean {
  return isRefusal(a) && isRefusal(b) && a.status === b.status && a.form === b.form && a.code === b.code;
}

/** Values a template may stand for in one observed error. */
export interface TemplateValues {
  code: string;
  message: string;
  httpStatus: number;
  request: Record<string, unknown>;
}

/** Candidate templates of one text, most specific first. */
function templatesOf(text: string, v: TemplateValues): string[] {
  const out: string[] = [];
  const full = `${v.code}:${v.message}`;
  if (text === full) out.push('{code}:{message}');
  if (text === v.code) out.push('{code}');
  if (text === v.message) out.push('{message}');
  if (text === String(v.httpStatus)) out.push('{httpStatus}');
  for (const [field, value] of Object.entries(v.request))
    if ((typeof value === 'string' || typeof value === 'number') && value !== '' && String(value) === text)
      out.push(`{request.${field}}`);
  // A text holding the code, message or status among other words ("Error 1001", "401 Invalid signature").
  let t = text;
  for (const [token, name] of [
    [full, '{code}:{message}'],
    [v.message, '{message}'],
    [v.code, '{code}'],
    [String(v.httpStatus), '{httpStatus}'],
  ] as const)
    if (token && t.includes(token)) t = t.split(token).join(`\u0000${name}\u0000`);
  t = t.replace(/\u0000/g, '');
  if (t !== text) out.push(t);
  out.push(text);
  return [...new Set(out)];
}

/** Render a template for observed values (the same rules as core/profile/template.ts, for the fitting test). */
function render(template: string, v: TemplateValues): string {
  return template.replace(/\{([^{}]+)\}/g, (all, name: string) => {
    if (name === 'code') return v.code;
    if (name === 'message') return v.message;
    if (name === 'httpStatus') return String(v.httpStatus);
    if (name.startsWith('request.')) {
      const x = v.request[name.slice(8)];
      return typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : '';
    }
    return all;
  });
}

/** The template of a text that renders every observation (the first candidate of the first one that does). */
export function fitTemplate(texts: readonly { text: string; values: TemplateValues }[]): string | undefined {
  const candidates = [...new Set(texts.flatMap((t) => templatesOf(t.text, t.values)))];
  return candidates.find((c) => texts.every((t) => render(c, t.values) === t.text));
}

type Shape = { [key: string]: string | Shape };

/**
 * The body template of error bodies (JSON objects or XML children) observed for several errors: each field's template
 * fitted over every observation that has it; fields only some observations have are left out. Key order: the first
 * observation's. `encryption_data` is never part of a template.
 */
export function fitBodyTemplate(observed: readonly { body: Record<string, unknown>; values: TemplateValues }[]): Shape {
  const first = observed[0]?.body ?? {};
  const out: Shape = {};
  for (const [key, value] of Object.entries(first)) {
    if (key === 'encryption_data') continue;
    const all = observed.filter((o) => key in o.body);
    if (all.length !== observed.length) continue;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const nested = fitBodyTemplate(
        all.map((o) => ({ body: o.body[key] as Record<string, unknown>, values: o.values })),
      );
      out[key] = nested;
      continue;
    }
    const template = fitTemplate(
      all.map((o) => ({
        text: typeof o.body[key] === 'string' ? (o.body[key] as string) : String(o.body[key]),
        values: o.values,
      })),
    );
    if (template !== undefined) out[key] = template;
  }
  return out;
}
