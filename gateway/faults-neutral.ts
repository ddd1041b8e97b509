/** Neutral variants: changes the document allows (another key order, extra markup, ...); each must still pass. */
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import {
  type Body,
  type FaultDefinition,
  body,
  contentType,
  items,
  reversedKeys,
  text,
  type WireHook,
} from './fault-hooks.js';

const XML_TREE = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  processEntities: false,
  parseTagValue: false,
  trimValues: true,
});
const XML_INDENTED = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  processEntities: false,
  format: true,
  indentBy: '  ',
  suppressEmptyNode: false,
});

/** XML text re-written with a full declaration, one element per line, indented. */
function indentedXml(xml: string): string {
  const tree = (XML_TREE.parse(xml) as Body[]).filter((node) => !('?xml' in node));
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${XML_INDENTED.build(tree) as string}`;
}

/** A checkout page reply whose form is submitted by an inline script instead of `<body onload>`. */
function scriptSubmit(call: string): WireHook {
  return text('text/html', (html) =>
    /<body onload=/.test(html)
      ? html.replace(/<body onload="[^"]*">/, '<body>').replace('</form>', `</form>\n<script>${call}</script>`)
      : html,
  );
}

/** The variants of this file: neutral variants: conformant, must pass. */
export const NEUTRAL_VARIANTS: readonly FaultDefinition[] = [
  {
    kind: 'neutral',
    name: 'json-extra-fields',
    description: 'JSON responses (and their result items) carry an extra field the spec does not declare.',
    reply: (reply, ctx) => {
      if (reply.kind !== 'json') return reply;
      const withList = items('all', (item) => ({ ...item, x_vendor_note: 'extra' }))(reply, ctx);
      return withList.kind === 'json'
        ? { ...withList, body: { ...withList.body, x_vendor_trace: 'neutral-0001' } }
        : withList;
    },
  },
  {
    kind: 'neutral',
    name: 'xml-extra-elements',
    description: 'XML responses carry an extra element the spec does not declare.',
    reply: (reply) =>
      reply.kind === 'xml' ? { ...reply, body: { ...reply.body, vendor_reference: 'neutral-0001' } } : reply,
  },
  {
    kind: 'neutral',
    name: 'json-keys-reversed',
    description: 'JSON responses list every object’s keys in reverse order.',
    reply: (reply) => (reply.kind === 'json' ? { ...reply, body: reversedKeys(reply.body) as Body } : reply),
  },
  {
    kind: 'neutral',
    name: 'xml-elements-reversed',
    description: 'XML responses list their elements in reverse order.',
    reply: (reply) => (reply.kind === 'xml' ? { ...reply, body: reversedKeys(reply.body) as Body } : reply),
  },
  {
    kind: 'neutral',
    name: 'xml-declared-and-indented',
    description: 'XML responses carry a full XML declaration (standalone) and one element per line, indented.',
    wire: text('application/xml', indentedXml),
  },
  {
    kind: 'neutral',
    name: 'xml-text-xml-charset',
    description: 'XML responses declare Content-Type text/xml with a charset parameter.',
    wire: contentType('application/xml', 'text/xml; charset=UTF-8'),
  },
  {
    kind: 'neutral',
    name: 'chunked-responses',
    description: 'Responses are sent with chunked transfer encoding, without Content-Length.',
    wire: (wire) => ({ ...wire, chunked: true }),
  },
  {
    kind: 'neutral',
    name: 'checkout-extra-markup',
    description:
      'The checkout page wraps the form in extra markup (a style sheet, a header, a wrapper element, a footer).',
    wire: text('text/html', (html) =>
      html
        .replace('</head>', '<style>body{font-family:sans-serif}</style>\n</head>')
        .replace(/(<body[^>]*>)/, '$1\n<header><p>Secure payment</p></header>\n<main><div class="wrapper">')
        .replace('</body>', '</div></main>\n<footer><p>&copy; Reference</p></footer>\n</body>'),
    ),
  },
  {
    kind: 'neutral',
    name: 'checkout-submit-by-script',
    description: 'The checkout page submits its form from an inline script instead of <body onload>.',
    wire: scriptSubmit('document.forms[0].submit();'),
  },
  {
    kind: 'neutral',
    name: 'checkout-request-submit',
    description: 'The checkout page submits its form with requestSubmit() from an inline script.',
    wire: scriptSubmit("document.forms['checkout'].requestSubmit();"),
  },
  {
    kind: 'neutral',
    name: 'signatures-upper-case',
    description:
      'Response encryption_data is written in upper-case hexadecimal (the reference profile compares case-insensitively).',
    reply: body('all', (b) =>
      typeof b.encryption_data === 'string' ? { ...b, encryption_data: b.encryption_data.toUpperCase() } : b,
    ),
  },
  {
    kind: 'neutral',
    name: 'payout-timestamps-z',
    description: 'Payout timestamps end with Z instead of +00:00.',
    reply: body(['payout'], (b) => ({
      ...b,
      created_at: String(b.created_at).replace(/\+00:00$/, 'Z'),
      last_updated_at: String(b.last_updated_at).replace(/\+00:00$/, 'Z'),
    })),
  },
];
