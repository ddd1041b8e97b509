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

/** `\uXXXX` of a character. */
const uEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text whose strings (names and values) write every letter and digit as a `\uXXXX` escape: the same JSON value.
 * Escapes already in a string are kept as they are.
 */
export function unicodeEscapedJson(json: string): string {
  return json.replace(/"(?:[^"\\]|\\.)*"/g, (str) =>
    str.replace(/\\u[0-9a-fA-F]{4}|\\.|[A-Za-z0-9]/g, (m) => (m.length === 1 ? uEscape(m) : m)),
  );
}

/** A numeric character reference of a character, decimal or hexadecimal by turns. */
function numericReference(c: string, i: number): string {
  const code = c.codePointAt(0)!;
  return i % 2 === 0 ? `&#${code};` : `&#x${code.toString(16).toUpperCase()};`;
}

/** Text (element or attribute content) with its letters and digits written as numeric character references; references kept. */
function referencedText(text: string): string {
  let i = 0;
  return text.replace(/&[#A-Za-z0-9]+;|[A-Za-z0-9]/g, (m) => (m.length === 1 ? numericReference(m, i++) : m));
}

/** XML text whose element text writes every letter and digit as a numeric character reference: the same document. */
export function referencedXml(xml: string): string {
  return xml.replace(/>([^<]+)</g, (_m, text: string) => `>${referencedText(text)}<`);
}

const XML_PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML text whose element text is written as CDATA sections (references decoded, `]]>` split): the same document. */
export function cdataXml(xml: string): string {
  return xml.replace(/>([^<]*[^<\s][^<]*)</g, (_m, text: string) => {
    const plain = text.replace(
      /&(amp|lt|gt|quot|apos);|&#(x[0-9a-fA-F]+|[0-9]+);/g,
      (_e, name?: string, num?: string) =>
        name
          ? XML_PREDEFINED[name]!
          : String.fromCodePoint(num!.startsWith('x') ? parseInt(num!.slice(1), 16) : Number(num)),
    );
    return `><![CDATA[${plain.replace(/]]>/g, ']]]]><![CDATA[>')}]]><`;
  });
}

/** Named references (HTML) of punctuation the gateway's pages hold. */
const NAMED: Record<string, string> = {
  '.': '&period;',
  ',': '&comma;',
  ':': '&colon;',
  '/': '&sol;',
  '=': '&equals;',
  '(': '&lpar;',
  ')': '&rpar;',
  _: '&lowbar;',
  '@': '&commat;',
  '+': '&plus;',
  '%': '&percnt;',
  '#': '&num;',
  ';': '&semi;',
  '?': '&quest;',
};

/** HTML text with letters and digits as numeric references and some punctuation as named ones; references kept. */
function htmlReferenced(text: string): string {
  let i = 0;
  return text.replace(/&[#A-Za-z0-9]+;|[A-Za-z0-9.,:/=()_@+%#;?]/g, (m) =>
    m.length > 1 ? m : (NAMED[m] ?? numericReference(m, i++)),
  );
}

/**
 * HTML text whose attribute values and text write letters, digits and punctuation as character references (numeric
 * and named), script and style contents aside: the same page.
 */
export function referencedHtml(html: string): string {
  return html.replace(/(<(script|style)\b[^>]*>[\s\S]*?<\/\2>)|(<[^>]*>)|([^<]+)/gi, (m, raw, _n, tag, text) => {
    if (raw) return m;
    if (tag)
      return (tag as string).replace(
        /(\s[\w-]+=)"([^"]*)"/g,
        (_a, name: string, v: string) => `${name}"${htmlReferenced(v)}"`,
      );
    return htmlReferenced(text as string);
  });
}

/** HTML text whose double-quoted attribute values are written unquoted where HTML allows it, single-quoted elsewhere. */
export function requotedHtml(html: string): string {
  return html.replace(/<[^>]*>/g, (tag) =>
    tag.replace(/(\s[\w-]+=)"([^"]*)"/g, (_a, name: string, v: string) =>
      /^[^\s"'=<>`]+$/.test(v) ? `${name}${v}` : `${name}'${v}'`,
    ),
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
  {
    kind: 'neutral',
    name: 'json-unicode-escapes',
    description: 'JSON answers write every letter and digit of their names and string values as a \\uXXXX escape.',
    wire: text('application/json', unicodeEscapedJson),
  },
  {
    kind: 'neutral',
    name: 'xml-character-references',
    description: 'XML answers write every letter and digit of their element text as a numeric character reference.',
    wire: text('application/xml', referencedXml),
  },
  {
    kind: 'neutral',
    name: 'xml-cdata',
    description: 'XML answers write the text of every element as a CDATA section.',
    wire: text('application/xml', cdataXml),
  },
  {
    kind: 'neutral',
    name: 'html-character-references',
    description:
      'HTML answers (the checkout page included) write letters, digits and punctuation of attribute values and text as numeric and named character references.',
    wire: text('text/html', referencedHtml),
  },
  {
    kind: 'neutral',
    name: 'html-attributes-requoted',
    description: 'HTML answers write attribute values unquoted where HTML allows it, single-quoted elsewhere.',
    wire: text('text/html', requotedHtml),
  },
];
