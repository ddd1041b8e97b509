/**
 * The body of a request as the gateway received it: one reading for the checks and for `profile discover`, so an
 * echo is compared with what went over the wire (a form body's values are its text), never with the structure the
 * kit built it from.
 */
import type { Exchange } from '../model.js';
import { decodeForm, sniffBody } from './form.js';

const sentBodies = new WeakMap<Exchange['request'], Record<string, unknown>>();

/**
 * The body as the gateway received it: the encoded text read back (JSON or form; a raw text only as far as it reads
 * as either), else the structured body. Read once per exchange (several checks ask); callers only read it.
 */
export function sentBody(exchange: Exchange): Record<string, unknown> {
  let read = sentBodies.get(exchange.request);
  if (!read) sentBodies.set(exchange.request, (read = readSentBody(exchange.request)));
  return read;
}

function readSentBody({ bodyText, encoding, body }: Exchange['request']): Record<string, unknown> {
  if (encoding === 'raw') return sniffBody(bodyText)?.value ?? {};
  try {
    if (encoding === 'json') {
      const value = JSON.parse(bodyText);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
    }
    if (encoding === 'form') return decodeForm(bodyText);
  } catch {
    // the structured body below
  }
  return body ?? {};
}
