/**
 * `npm run docs`: one self-contained HTML page of the interface (docs/index.html), readable offline.
 *
 * The page is built by `redocly build-docs --inlineBundle` (the renderer inside the page, no CDN) from a derived copy
 * of the spec written at docs time under node_modules/.cache/pagi-conformance/docs/; the spec itself is never edited:
 * - each operation's description lists its requirement ids and levels (per variant), linked to the catalogue;
 * - the description opens with the requirement catalogue, the formats table of docs/spec-and-levels.md and the
 *   signing recipe of every profile with worked examples whose signatures are computed by core/signing.ts;
 * - schema patterns become the format names and rules of the formats table (Redoc would print merged `allOf`
 *   patterns as look-ahead chains);
 * - the examples' `encryption_data` values are real signatures (reference profile, sandbox example secret).
 * Redoc's in-page telemetry is switched off (`disableTelemetry`), and every address the renderer could load or link
 * outside the page is replaced by `about:blank`; the build fails when an external address remains, other than
 * XML namespaces and the identifiers and example hosts of the spec.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { OperationKey, Requirement } from '../core/model.js';
import { loadProfile, type Profile } from '../core/profile/load.js';
import { digest, sign, stringToSign } from '../core/signing.js';
import { kitSpec, type SpecModel } from '../core/spec/load.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { readYamlFile } from '../core/yaml.js';
import { sandboxCredentials } from '../pact/interactions.js';
import { formatsTable } from './readme-formats.js';

/** Where the derived copy of the spec is written. */
export const DERIVED = path.join(KIT_ROOT, 'node_modules', '.cache', 'pagi-conformance', 'docs');
/** The page. */
export const OUTPUT = path.join(KIT_ROOT, 'docs', 'index.html');
/** Profiles whose signing recipe the page documents. */
export const DOC_PROFILES = ['reference', 'sample-hmac-sorted'];
/** Hosts that may remain in the page: XML/SVG namespaces, URL bases of the renderer, and the spec's own identifiers and example hosts. */
export const ALLOWED_HOSTS = [
  /^www\.w3\.org$/,
  /^json-schema\.org$/,
  /^pagi-conformance\.dev$/,
  /^localhost$/,
  /^(www\.)?example\.com$/,
  /(^|\.)[a-z0-9-]+\.example$/,
];
/** Hosts of the renderer's own links and resources, replaced by about:blank. */
const RENDERER_HOSTS =
  /https?:\/\/(?:[a-z0-9-]+\.)*(?:redocly\.com|redoc\.ly|github\.com|githubusercontent\.com|reactrouter\.com|react\.dev|reactjs\.org|claude\.ai|chatgpt\.com|openai\.com|yarnpkg\.com|npmjs\.com|wikipedia\.org|commonmark\.org|googleapis\.com|gstatic\.com|unpkg\.com|jsdelivr\.net|mozilla\.org|cursor\.com|anthropic\.com)(?::[0-9]+)?[^\s"'`)<>\\]*/g;

/** An empty image, inline. */
const EMPTY_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

/** The catalogue anchor the operations link to. */
const CATALOGUE_LINK = '#/section/requirement-catalogue';

function esc(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function levelOf(spec: SpecModel, id: string): string {
  return spec.requirements.get(id)?.level ?? 'unknown';
}

/**
 * The rule text of a format of common.schema.json, as the formats table of docs/spec-and-levels.md writes it (levels
 * from the catalogue).
 */
export function formatRule(spec: SpecModel, def: Record<string, any>): string {
  const rule = def.pattern ? `\`${def.pattern}\`` : def.format ? `format \`${def.format}\`` : `type \`${def.type}\``;
  const extra = (def.allOf ?? [])
    .filter((b: any) => b.pattern)
    .map((b: any) => `; ${b['x-requirement']} (${levelOf(spec, b['x-requirement'])}): \`${b.pattern}\``)
    .join('');
  return `${rule}${extra}`;
}

/** Remove patterns from a schema tree, saying the format and rule in the description instead. */
function describePatterns(spec: SpecModel, node: unknown, formats: Record<string, Record<string, any>>): void {
  if (Array.isArray(node)) {
    for (const n of node) describePatterns(spec, n, formats);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Record<string, any>;
  const ref = typeof n.$ref === 'string' ? /common\.schema\.json#\/\$defs\/(\w+)$/.exec(n.$ref) : null;
  if (ref && formats[ref[1]!] && (formats[ref[1]!]!.pattern || formats[ref[1]!]!.format || formats[ref[1]!]!.allOf)) {
    const def = formats[ref[1]!]!;
    const note = `Format \`${ref[1]}\` (${def['x-requirement']}): ${formatRule(spec, def)}.`;
    n.description = n.description ? `${n.description} ${note}` : note;
  }
  if (typeof n.pattern === 'string') {
    const note = `Rule (${n['x-requirement'] ?? 'spec'}): matches \`${n.pattern}\`.`;
    n.description = n.description ? `${n.description} ${note}` : note;
    delete n.pattern;
  }
  if (n.not && typeof n.not === 'object' && typeof n.not.pattern === 'string') {
    const note = `Rule (${n['x-requirement'] ?? 'spec'}): never matches \`${n.not.pattern}\` (no full card number).`;
    n.description = n.description ? `${n.description} ${note}` : note;
    delete n.not;
  }
  if (Array.isArray(n.allOf)) {
    n.allOf = n.allOf.filter(
      (b: any) =>
        !(b && typeof b === 'object' && Object.keys(b).every((k) => k === 'pattern' || k === 'x-requirement')),
    );
    if (!n.allOf.length) delete n.allOf;
  }
  for (const [k, v] of Object.entries(n))
    if (k !== 'examples' && k !== 'description') describePatterns(spec, v, formats);
}

/** The requirement list of an operation variant, as a markdown table linked to the catalogue. */
function requirementTable(spec: SpecModel, ids: string[]): string {
  const rows = ids.map((id) => {
    const r = spec.requirements.get(id);
    return `| [${id}](${CATALOGUE_LINK}) | ${r?.level ?? '?'} | ${esc(r?.statement ?? '')} |`;
  });
  return ['| requirement | level | statement |', '|---|---|---|', ...rows].join('\n');
}

function catalogueSection(spec: SpecModel): string {
  const rows = [...spec.requirements.values()].map(
    (r: Requirement) =>
      `| ${r.id} | ${r.level} | ${esc(r.section)} | ${esc(r.statement)}${r.note ? ` *${esc(r.note)}*` : ''} | ${r.operations.join(', ') || '—'} |`,
  );
  return [
    '# Requirement catalogue',
    '',
    'Every normative statement of the interface document, in the kit\'s words (`spec/requirements.yaml`). Levels: **must** (the document states it), **expected** (shown occurring, conventional, or implied), **profile** (defined by a profile), **unspecified** ("not shown": nothing to check).',
    '',
    '| id | level | section | statement | operations |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The example bodies of an operation, by media, as the spec lists them. */
function exampleValue(spec: SpecModel, ref: string): any {
  return readYamlFile(path.join(spec.root, 'spec', ref)).value;
}

/** One worked signing example: the string to sign, the digest input and the signature, computed by core/signing.ts. */
export function workedExample(
  profile: Profile,
  direction: 'request' | 'response',
  operation: OperationKey,
  body: Record<string, unknown>,
  secret: string,
): { text: string; signature: string } {
  const unsigned = { ...body };
  delete unsigned.encryption_data;
  const text = stringToSign(profile.signature, direction, operation, unsigned);
  if (text === undefined) throw new Error(`${profile.name} does not sign ${direction}s of ${operation}`);
  return { text, signature: digest(profile.signature, text, secret) };
}

function recipe(profile: Profile): string[] {
  const sig = profile.signature;
  const lines: string[] = [];
  lines.push(
    sig.algorithm.name === 'hmac-sha256'
      ? '- **Algorithm**: HMAC-SHA256 of the string to sign, keyed with the secret (UTF-8).'
      : `- **Algorithm**: SHA-256 of the string to sign, then ${JSON.stringify((sig.algorithm as { secretJoin: string }).secretJoin)}, then the secret.`,
  );
  lines.push(
    `- **Secret**: the gateway's configuration gives it (per account or per merchant); encoding \`${sig.encoding}\`${sig.caseInsensitiveCompare ? ', compared ignoring case' : ''}.`,
  );
  const req = sig.request as any;
  if (req.mode === 'fieldList') {
    lines.push(
      `- **Requests**: the values of these top-level fields joined by ${JSON.stringify(req.separator)} (an absent field ${req.missingField === 'emptyString' ? 'counts as ""' : 'is left out'}):`,
    );
    for (const [op, fields] of Object.entries<string[]>(req.fields))
      lines.push(`  - \`${op}\`: ${fields.map((f) => `\`${f}\``).join(', ')}`);
  } else {
    lines.push(
      `- **Requests**: every top-level scalar field but ${req.exclude.map((f: string) => `\`${f}\``).join(', ')}, sorted by name, written \`name${req.keyValueSeparator}value\` and joined by ${JSON.stringify(req.pairSeparator)}${req.skipEmpty ? ', empty values skipped' : ''}${req.valueEncoding === 'urlEncoded' ? ', values URL-encoded' : ''}.`,
    );
  }
  const res = sig.response as any;
  if (!res.signed) lines.push('- **Responses**: not signed.');
  else if (res.pairs) lines.push('- **Responses**: signed as sorted pairs, like requests.');
  else {
    lines.push(`- **Responses**: the values of these fields joined by ${JSON.stringify(res.separator)}:`);
    for (const [op, fields] of Object.entries<string[]>(res.fields))
      lines.push(`  - \`${op}\`: ${fields.map((f) => `\`${f}\``).join(', ')}`);
  }
  return lines;
}

function signingSection(spec: SpecModel): string {
  const { secret } = sandboxCredentials();
  const out = [
    '# Signing',
    '',
    "How `encryption_data` is computed is not shown by the document (PAGI-AUTH-006, PAGI-AUTH-007: profile level): each profile states it. The worked examples below are computed from the spec's example bodies with the sandbox's example secret",
    `\`${secret}\` (account \`M10001\`/\`A20001\` of \`gateway/config.default.yaml\`, which \`pagi-conform serve\` accepts); the kit's own signing code (core/signing.ts) produced every signature shown.`,
  ];
  const examples = [
    {
      operation: 'authoriseDirect' as OperationKey,
      ref: 'examples/authorise-direct-request.yaml',
      direction: 'request' as const,
      title: 'direct payment request (`spec/examples/authorise-direct-request.yaml`)',
    },
    {
      operation: 'capture' as OperationKey,
      ref: 'examples/capture-response.yaml',
      direction: 'response' as const,
      title: 'capture response (`spec/examples/capture-response.yaml`)',
    },
  ];
  for (const name of DOC_PROFILES) {
    const { profile } = loadProfile(name);
    out.push(
      '',
      `## Profile ${profile.name} (${profile.version})`,
      '',
      profile.description ?? '',
      '',
      ...recipe(profile),
      '',
    );
    for (const ex of examples) {
      let worked: ReturnType<typeof workedExample>;
      try {
        worked = workedExample(profile, ex.direction, ex.operation, exampleValue(spec, ex.ref), secret);
      } catch {
        out.push(`Worked example, ${ex.title}: this profile does not sign it.`, '');
        continue;
      }
      const input =
        profile.signature.algorithm.name === 'hmac-sha256'
          ? `HMAC-SHA256(key = secret, message = string to sign)`
          : `SHA-256(string to sign + ${JSON.stringify((profile.signature.algorithm as { secretJoin: string }).secretJoin)} + secret)`;
      out.push(
        `Worked example, ${ex.title}:`,
        '',
        '```text',
        `string to sign:  ${worked.text}`,
        `secret:          ${secret}`,
        `digest:          ${input}`,
        `encryption_data: ${worked.signature}`,
        '```',
        '',
      );
    }
  }
  return out.join('\n');
}

/** Write the derived copy of the spec; the path of its openapi.yaml. */
export function writeDerivedSpec(spec: SpecModel = kitSpec()): string {
  fs.rmSync(DERIVED, { recursive: true, force: true });
  fs.mkdirSync(DERIVED, { recursive: true });
  fs.cpSync(path.join(spec.root, 'spec'), path.join(DERIVED, 'spec'), { recursive: true });
  fs.cpSync(path.join(spec.root, 'schemas'), path.join(DERIVED, 'schemas'), { recursive: true });
  // Schemas: format names and rules instead of patterns.
  const common = JSON.parse(fs.readFileSync(path.join(spec.root, 'schemas', 'common.schema.json'), 'utf8'));
  const formats = common.$defs as Record<string, Record<string, any>>;
  for (const file of fs.readdirSync(path.join(DERIVED, 'schemas')).filter((f) => f.endsWith('.schema.json'))) {
    const at = path.join(DERIVED, 'schemas', file);
    const doc = JSON.parse(fs.readFileSync(at, 'utf8'));
    if (file === 'common.schema.json') {
      for (const [name, def] of Object.entries<Record<string, any>>(doc.$defs)) {
        if (def.pattern || def.allOf || def.format)
          def.description =
            `${def.description ?? ''} Format \`${name}\` (${def['x-requirement']}): ${formatRule(spec, formats[name]!)}.`.trim();
      }
    }
    describePatterns(spec, doc, formats);
    fs.writeFileSync(at, `${JSON.stringify(doc, null, 2)}\n`);
  }
  // Examples: real signatures (reference profile, sandbox example secret).
  const reference = loadProfile('reference').profile;
  const { secret } = sandboxCredentials();
  const openapi = structuredClone(spec.openapi);
  const replaced = new Map<string, string>();
  for (const op of spec.operations.values()) {
    const post = openapi.paths[op.path].post;
    const sets: { direction: 'request' | 'response'; content: Record<string, any> }[] = [
      { direction: 'request', content: post.requestBody?.content ?? {} },
      { direction: 'response', content: post.responses?.['200']?.content ?? {} },
    ];
    for (const { direction, content } of sets) {
      for (const media of Object.values<any>(content)) {
        for (const example of Object.values<any>(media.examples ?? {})) {
          if (!example.$ref) continue;
          const file = path.join(DERIVED, 'spec', example.$ref);
          const doc = readYamlFile(file);
          const value = doc.value;
          if (!value || typeof value !== 'object' || typeof value.encryption_data !== 'string') continue;
          const isApm = 'payment_method' in value || 'issuer_url' in value;
          if (op.path === '/v1/authorise' && isApm !== (op.key === 'authoriseApm')) continue;
          const signature = sign(
            reference.signature,
            direction,
            op.key,
            Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'encryption_data')),
            secret,
          );
          if (!signature) continue;
          replaced.set(value.encryption_data, signature);
          value.encryption_data = signature;
          doc.description =
            `${doc.description ?? doc.summary ?? ''} encryption_data is the reference profile's signature with the sandbox example secret.`.trim();
          fs.writeFileSync(file, stringify(doc, { lineWidth: 0 }));
        }
      }
    }
  }
  // The checkout page and its form model carry the request's signature in their inputs.
  for (const name of ['checkout-response.yaml', 'checkout-form.yaml']) {
    const file = path.join(DERIVED, 'spec', 'examples', name);
    if (!fs.existsSync(file)) continue;
    let text = fs.readFileSync(file, 'utf8');
    for (const [old, now] of replaced) text = text.split(old).join(now);
    fs.writeFileSync(file, text);
  }
  // Operations: requirement ids and levels per variant, linked to the catalogue.
  for (const [opPath, item] of Object.entries<any>(openapi.paths)) {
    const post = item.post;
    const parts: string[] = [post.description ?? ''];
    for (const variant of post['x-pagi-variants'] ?? []) {
      parts.push(
        `### Requirements${variant.summary ? ` — ${variant.summary}` : ''} (\`${variant.key}\`)`,
        '',
        requirementTable(spec, variant.requirements ?? []),
        '',
      );
    }
    parts.push(
      `See the [requirement catalogue](${CATALOGUE_LINK}) for every requirement; the [signing](#/section/signing) section for \`encryption_data\`. Path: \`POST {base_url}${opPath}\`.`,
    );
    post.description = parts.join('\n\n');
  }
  openapi.info.description = [
    openapi.info.description,
    catalogueSection(spec),
    '# Formats',
    '',
    'Field formats of the schemas (the formats table of `docs/spec-and-levels.md`, generated from `schemas/common.schema.json`); a schema field names its format and rule in its description.',
    '',
    formatsTable(),
    '',
    signingSection(spec),
  ].join('\n\n');
  const file = path.join(DERIVED, 'spec', 'openapi.yaml');
  fs.writeFileSync(file, stringify(openapi, { lineWidth: 0 }));
  return file;
}

/** External addresses left in a page, by host (those allowed excluded). */
export function externalHosts(html: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of html.matchAll(/https?:\/\/([a-zA-Z0-9.-]+)/g)) {
    const host = m[1]!.toLowerCase();
    if (ALLOWED_HOSTS.some((re) => re.test(host))) continue;
    out.set(host, (out.get(host) ?? 0) + 1);
  }
  return out;
}

/** Build the page; its path. */
export function buildDocs(output = OUTPUT): string {
  const derived = writeDerivedSpec();
  fs.mkdirSync(path.dirname(output), { recursive: true });
  const bin = path.join(KIT_ROOT, 'node_modules', '.bin', 'redocly');
  execFileSync(
    bin,
    [
      'build-docs',
      derived,
      '--inlineBundle',
      '--output',
      output,
      '--title',
      'PAGI — Payment Acquiring Gateway Interface',
      '--openapi.disableTelemetry=true',
      '--lint-config',
      'off',
    ],
    {
      cwd: DERIVED,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let html = fs.readFileSync(output, 'utf8');
  // The renderer's logo is an image it would fetch: an empty inline SVG stands in for it.
  html = html.replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, EMPTY_SVG);
  html = html.replace(RENDERER_HOSTS, 'about:blank');
  const left = externalHosts(html);
  if (left.size) throw new Error(`docs: external addresses remain in ${output}: ${[...left.keys()].join(', ')}`);
  fs.writeFileSync(output, html);
  return output;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = buildDocs();
  console.log(
    `docs written: ${path.relative(process.cwd(), file)} (${Math.round(fs.statSync(file).size / 1024)} KiB, self-contained, no external address)`,
  );
}
