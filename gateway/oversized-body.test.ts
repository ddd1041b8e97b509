/**
 * A profile that puts `malformedBody` before `bodyTooLarge` is served as it says: the gateway reads an oversized body
 * (up to where it closes the connection anyway) and answers one it cannot parse as malformed, a well-formed one as too
 * large. The format's own order (`bodyTooLarge` first) leaves an oversized body unread.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startGateway, type RunningGateway } from './index.js';
import { tempFile } from '../test/support/temp.js';

const reference = parse(fs.readFileSync(new URL('../spec/profiles/reference.yaml', import.meta.url), 'utf8'));
const CAP: number = reference.limits.maxBodyBytes;

function withOrder(order: string[]): string {
  const p = structuredClone(reference);
  p.errors.precedence = order;
  return tempFile('profile.yaml', stringify(p));
}

/** The code of the refusal of a capture body of `size` bytes, well formed or not. */
async function codeFor(gw: RunningGateway, size: number, wellFormed: boolean): Promise<string> {
  const filler = 'x'.repeat(size);
  const body = wellFormed ? JSON.stringify({ merchant_id: 'M10001', pad: filler }).slice(0, size) : `{${filler}`;
  const text = wellFormed ? `${body.slice(0, -2)}"}` : body;
  const r = await fetch(`${gw.url}/v1/capture`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  }).catch((e: Error) => e);
  if (r instanceof Error) return `no answer: ${r.message}`;
  const answer = await r.text();
  return `${r.status} ${/"1\d{3}/.exec(answer)?.[0]?.slice(1) ?? answer.slice(0, 80)}`;
}

describe('an oversized body under a profile that reads the body first', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({
      profile: withOrder(
        reference.errors.precedence.flatMap((k: string) =>
          k === 'bodyTooLarge' ? [] : k === 'malformedBody' ? ['malformedBody', 'bodyTooLarge'] : [k],
        ),
      ),
    });
  });
  afterAll(() => gw.close());

  it('answers an oversized body it cannot parse as malformed', async () => {
    expect(await codeFor(gw, CAP + 10, false)).toBe('400 1006');
  });
  it('answers an oversized well-formed body as too large', async () => {
    expect(await codeFor(gw, CAP + 10, true)).toBe('413 1007');
  });
  it('answers a body an unparsed start of which is all it kept (past the drain length) as too large', async () => {
    expect(await codeFor(gw, CAP * 17, false)).toMatch(/^413 1007$|^no answer/);
  });
});

describe("an oversized body under the format's order", () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({});
  });
  afterAll(() => gw.close());

  it('answers an oversized body it cannot parse as too large, unread', async () => {
    expect(await codeFor(gw, CAP + 10, false)).toBe('413 1007');
  });
});
