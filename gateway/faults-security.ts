/** Faults of the security family: signatures, the address restriction, escaping. */
import { type FaultDefinition, body, text } from './fault-hooks.js';

const UNESCAPE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** Checkout page text whose attribute values are written without HTML escaping. */
function unescapedHtml(html: string): string {
  return html.replace(
    /value="([^"]*)"/g,
    (_m, value: string) => `value="${value.replace(/&(amp|lt|gt|quot|#39);/g, (e) => UNESCAPE[e]!)}"`,
  );
}

const XML_UNESCAPE: Record<string, string> = { ...UNESCAPE, '&apos;': "'" };

/** XML answer text whose note element holds its text without XML escaping (markup in it is written as markup). */
function unescapedNote(xml: string): string {
  return xml.replace(
    /<note>([^<]*)<\/note>/,
    (_m, text: string) => `<note>${text.replace(/&(amp|lt|gt|quot|apos|#39);/g, (e) => XML_UNESCAPE[e]!)}</note>`,
  );
}

/** The variants of this file: security. */
export const SECURITY_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'signature-not-verified',
    description: 'Requests are accepted whatever their encryption_data, even without one.',
    requirement: 'PAGI-AUTH-006',
    expectedCheck: 'badSignatureRefusedPerProfile',
    switches: { signatureCheck: 'ignored' },
  },
  {
    kind: 'fault',
    name: 'missing-signature-accepted',
    description: 'Requests without encryption_data are accepted (a wrong one is still refused).',
    requirement: 'PAGI-AUTH-005',
    expectedCheck: 'missingSignatureRefused',
    switches: { signatureCheck: 'ignoredWhenMissing' },
  },
  {
    kind: 'fault',
    name: 'signature-checked-after-operation',
    description:
      'A request with a wrong encryption_data is refused only after the operation ran: a request that does not authenticate is carried out (and the refusal changed the state).',
    requirement: 'PAGI-INV-013',
    expectedCheck: 'unauthenticatedNeverCarriedOut',
    switches: { signatureCheck: 'afterOperation' },
  },
  {
    kind: 'fault',
    name: 'query-from-any-address',
    description: 'The query answers requests from source addresses the merchant never registered.',
    requirement: 'PAGI-AUTH-008',
    expectedCheck: 'queryRefusedFromUnregisteredAddress',
    switches: { skipAddressRestriction: true },
  },
  {
    kind: 'fault',
    name: 'response-signature-wrong',
    description: 'Responses carry an encryption_data that does not verify (the right digits in reverse order).',
    requirement: 'PAGI-AUTH-007',
    expectedCheck: 'responseSignatureVerifies',
    reply: body('all', (b) =>
      typeof b.encryption_data === 'string' ? { ...b, encryption_data: [...b.encryption_data].reverse().join('') } : b,
    ),
  },
  {
    kind: 'fault',
    name: 'checkout-values-unescaped',
    description: 'The checkout page writes input values without HTML escaping.',
    requirement: 'PAGI-SEC-002',
    expectedCheck: 'freeTextParsesBackExactly',
    wire: text('text/html', unescapedHtml),
  },
  {
    kind: 'fault',
    name: 'direct-note-unescaped',
    description:
      'The direct payment answer writes note without XML escaping: markup the request sent in it becomes elements of the answer.',
    requirement: 'PAGI-SEC-004',
    expectedCheck: 'freeTextParsesBackExactly',
    wire: text('application/xml', unescapedNote),
  },
];
