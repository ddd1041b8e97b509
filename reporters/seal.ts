/**
 * The seal of the HTML report: the report embeds its results (`script#pagi-results`) and a seal
 * (`script#pagi-seal`) holding the sha256 digest of the page (everything but the seal's own content), the digest of
 * the embedded results and, when signed, an Ed25519 signature over both with the public key. `verifyReport` tells
 * an untouched report from an edited one.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { UsageError } from '../core/types/errors.js';

/** Format tag of the seal. */
const SEAL_FORMAT = 'pagi-report-seal/1';

const SEAL_OPEN = '<script type="application/json" id="pagi-seal">';
const RESULTS_OPEN = '<script type="application/json" id="pagi-results">';
const CLOSE = '</script>';

/** What the seal holds. */
export interface Seal {
  format: string;
  /** sha256 (hex) of the page with the seal's content left empty. */
  digest: string;
  /** sha256 (hex) of the embedded results, parsed and serialised again (whitespace-independent). */
  resultsDigest: string;
  /** Ed25519 signature (base64) of `signedText(digest, resultsDigest)`. */
  signature?: string;
  /** The signer's public key (PEM, SPKI). */
  publicKey?: string;
  /** sha256 (hex) of the public key's DER form. */
  keyFingerprint?: string;
}

/** What `verifyReport` found: whether the report is untouched (and signed as required), and one line per fact. */
export interface Verification {
  ok: boolean;
  lines: string[];
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** JSON that is safe inside an HTML `<script>` element: `<`, `>`, `&` and the JS line separators escaped. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The element embedding the results. */
export function resultsElement(results: unknown): string {
  return `${RESULTS_OPEN}${scriptJson(results)}${CLOSE}`;
}

/** The (empty) seal element to place in the page before sealing. */
export const EMPTY_SEAL = `${SEAL_OPEN}${CLOSE}`;

function signedText(digest: string, resultsDigest: string): Buffer {
  return Buffer.from(`${SEAL_FORMAT}\n${digest}\n${resultsDigest}`);
}

function fingerprint(key: KeyObject): string {
  return sha256(key.export({ type: 'spki', format: 'der' }));
}

/** The content of the one element opened by `open`, or why there is none. */
function elementContent(html: string, open: string): { start: number; end: number } | string {
  const start = html.indexOf(open);
  if (start < 0) return 'missing';
  if (html.indexOf(open, start + 1) >= 0) return 'present more than once';
  const end = html.indexOf(CLOSE, start + open.length);
  return end < 0 ? 'not closed' : { start: start + open.length, end };
}

function resultsDigestOf(html: string): string | undefined {
  const at = elementContent(html, RESULTS_OPEN);
  if (typeof at === 'string') return undefined;
  try {
    return sha256(JSON.stringify(JSON.parse(html.slice(at.start, at.end))));
  } catch {
    return undefined;
  }
}

/** Seal a page holding `EMPTY_SEAL` and its results element; signs when a private key is given. */
export function sealPage(page: string, key?: KeyObject): string {
  const resultsDigest = resultsDigestOf(page);
  if (!resultsDigest || !page.includes(EMPTY_SEAL))
    throw new Error('the page has no embedded results or no seal element');
  const digest = sha256(page);
  const seal: Seal = { format: SEAL_FORMAT, digest, resultsDigest };
  if (key) {
    const publicKey = createPublicKey(key);
    seal.signature = sign(null, signedText(digest, resultsDigest), key).toString('base64');
    seal.publicKey = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    seal.keyFingerprint = fingerprint(publicKey);
  }
  return page.replace(EMPTY_SEAL, `${SEAL_OPEN}${scriptJson(seal)}${CLOSE}`);
}

function readKey(file: string, kind: 'private' | 'public'): KeyObject {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `Cannot read the ${kind} key ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`,
    );
  }
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch {
    throw new UsageError(`The ${kind} key ${file} is not a PEM ${kind} key.`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(
      `The ${kind} key ${file} is a ${key.asymmetricKeyType} key; an Ed25519 key is needed (openssl genpkey -algorithm ed25519).`,
    );
  return key;
}

/** Read an Ed25519 private key (PEM); a usage error when it cannot be used. */
export function loadPrivateKey(file: string): KeyObject {
  return readKey(file, 'private');
}

/** Read an Ed25519 public key (PEM; a private key file gives its public key); a usage error when it cannot be used. */
export function loadPublicKey(file: string): KeyObject {
  return readKey(file, 'public');
}

function readSeal(html: string): Seal | string {
  const at = elementContent(html, SEAL_OPEN);
  if (typeof at === 'string') return `the seal is ${at}`;
  try {
    const seal = JSON.parse(html.slice(at.start, at.end)) as Seal;
    return seal.format === SEAL_FORMAT && typeof seal.digest === 'string' && typeof seal.resultsDigest === 'string'
      ? seal
      : 'the seal is not a pagi-report-seal/1';
  } catch {
    return 'the seal is not JSON';
  }
}

function signatureLine(
  seal: Seal,
  digest: string,
  resultsDigest: string,
  publicKey: KeyObject | undefined,
): { ok: boolean; line: string } {
  if (!seal.signature) {
    return publicKey
      ? { ok: false, line: 'signature: none, but a public key was given' }
      : {
          ok: false,
          line: 'signature: none (the report is not signed; anyone could have recomputed the digests after an edit)',
        };
  }
  let key: KeyObject;
  try {
    key = publicKey ?? createPublicKey(seal.publicKey ?? '');
  } catch {
    return { ok: false, line: 'signature: the embedded public key is not readable' };
  }
  const valid = verify(null, signedText(digest, resultsDigest), key, Buffer.from(seal.signature, 'base64'));
  const who = publicKey
    ? 'the given public key'
    : 'the public key embedded in the report (pass --public-key to check who signed)';
  return valid
    ? {
        ok: true,
        line: `signature: a valid Ed25519 signature of the sealed digests by ${who}, fingerprint sha256:${fingerprint(key)}`,
      }
    : { ok: false, line: `signature: INVALID for ${who}` };
}

/** Whether a report is untouched: its results and page match the sealed digests, and the signature verifies. */
export function verifyReport(html: string, publicKey?: KeyObject): Verification {
  const seal = readSeal(html);
  if (typeof seal === 'string') return { ok: false, lines: [`not a sealed pagi-conform report: ${seal}`] };
  const resultsDigest = resultsDigestOf(html);
  const lines: string[] = [];
  const resultsOk = resultsDigest === seal.resultsDigest;
  lines.push(
    resultsOk
      ? `results: match their digest sha256:${seal.resultsDigest}`
      : resultsDigest
        ? 'results: EDITED (they do not match the sealed digest)'
        : 'results: missing or not JSON',
  );
  const pageDigest = sha256(
    html.replace(/<script type="application\/json" id="pagi-seal">[\s\S]*?<\/script>/, EMPTY_SEAL),
  );
  const pageOk = pageDigest === seal.digest;
  lines.push(
    pageOk ? `page: matches its digest sha256:${seal.digest}` : 'page: EDITED (it does not match the sealed digest)',
  );
  const signature = signatureLine(seal, seal.digest, seal.resultsDigest, publicKey);
  lines.push(signature.line);
  const ok = resultsOk && pageOk && signature.ok;
  // An unsigned seal proves nothing: whoever edits the page can recompute its digests.
  const unsignedIntact = resultsOk && pageOk && !seal.signature && !publicKey;
  lines.push(
    ok
      ? 'report: untouched'
      : unsignedIntact
        ? 'report: NOT SIGNED: the digests match, but an unsigned report cannot be told from an edited one (sign it with run --sign-key)'
        : 'report: TAMPERED or not signed as required',
  );
  return { ok, lines };
}
