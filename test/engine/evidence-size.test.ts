/**
 * Evidence of an oversized request body is kept once, cut, with its length and sha-256: a run whose finding rests on
 * the oversized query of `outsideRequests` (the kit's profile expects another bodyTooLarge code than the gateway
 * answers) writes results.json and report.html without the body's megabyte, neither in the evidence nor in the curl
 * line; the curl line sends the body from `$PAGI_BODY_FILE`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { maskText } from '../../core/mask.js';
import type { Evidence, RunResult } from '../../core/model.js';
import { buildEvidence, EXCERPT_CHARS, REQUEST_BODY_CHARS } from '../../engine/evidence.js';
import { startGateway } from '../../gateway/index.js';
import { run } from '../../kit/index.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { tempDir } from '../support/temp.js';

const RULES = { secrets: ['evidence-secret'], cards: ['4111111111111111'], fields: ['card_no'] };

describe('evidence of a request body', () => {
  it('keeps a body up to the bound whole, in the evidence and in the curl line', () => {
    const body = `{"card_no":"4111111111111111","pad":"${'y'.repeat(REQUEST_BODY_CHARS - 100)}"}`;
    const e = buildEvidence(
      { method: 'POST', url: 'http://gw/v1/capture', headers: {}, body: {}, bodyText: body, encoding: 'raw' },
      undefined,
      RULES,
    );
    expect(e.request.truncated).toBeUndefined();
    expect(e.request.body).toContain('y'.repeat(REQUEST_BODY_CHARS - 100));
    expect(e.request.body).not.toContain('4111111111111111');
    expect(e.curl).toContain('y'.repeat(REQUEST_BODY_CHARS - 100));
  });

  it('cuts a longer one once, with its length as sent and the sha-256 of its masked text', () => {
    const body = `{"card_no":"4111111111111111","pad":"${'y'.repeat(2 * REQUEST_BODY_CHARS)}"}`;
    const e: Evidence = buildEvidence(
      { method: 'POST', url: 'http://gw/v1/capture', headers: {}, body: {}, bodyText: body, encoding: 'raw' },
      undefined,
      RULES,
    );
    expect(e.request.truncated).toBe(true);
    expect(e.request.bodyBytes).toBe(Buffer.byteLength(body));
    expect(e.request.body).toHaveLength(EXCERPT_CHARS + 1);
    expect(e.request.body.endsWith('…')).toBe(true);
    expect(e.request.body).not.toContain('4111111111111111');
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(e.request.bodySha256).toBe(sha(maskText(body, RULES)));
    expect(e.request.bodySha256).not.toBe(sha(body));
    expect(e.curl.length).toBeLessThan(EXCERPT_CHARS);
    expect(e.curl).toContain('--data-binary "@$PAGI_BODY_FILE"');
    expect(e.curl).toContain(`${Buffer.byteLength(body)} bytes, masked sha-256 ${e.request.bodySha256}`);
  });

  it("a run's results.json and report.html hold an oversized body once, cut, with its length and sha-256", {
    timeout: 240_000,
  }, async () => {
    const dir = tempDir('pagi-evidence-size-');
    const reference = fs.readFileSync(path.join(KIT_ROOT, 'spec/profiles/reference.yaml'), 'utf8');
    const own = reference.replace(
      'bodyTooLarge: { status: 413, code: "1007", message: Body too large }',
      'bodyTooLarge: { status: 413, code: "1099", message: Body too large }',
    );
    expect(own).not.toBe(reference);
    const profile = path.join(dir, 'profile.yaml');
    fs.writeFileSync(profile, own);
    const out = path.join(dir, 'out');
    const gateway = await startGateway({ port: 0, host: '127.0.0.1' });
    try {
      const merchant = gateway.config.merchants[0]!;
      const account = merchant.accounts[0]!;
      await run({
        target: gateway.baseUrl,
        merchantId: merchant.merchantId,
        accountId: account.accountId,
        secret: account.secret,
        profile,
        only: ['outsideRequestsAnsweredPerProfile'],
        notifyWait: 300,
        reporter: ['json', 'html'],
        out,
        seed: 1,
      });
    } finally {
      await gateway.close();
    }
    const text = fs.readFileSync(path.join(out, 'results.json'), 'utf8');
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    const limit = 1024 * 1024;
    // The megabyte of filler is nowhere, not even once: neither file is as long as the body.
    const filler = 'x'.repeat(EXCERPT_CHARS + 1);
    expect(text.length).toBeLessThan(limit);
    expect(text).not.toContain(filler);
    expect(html.length).toBeLessThan(limit);
    expect(html).not.toContain(filler);
    const results = JSON.parse(text) as RunResult;
    const evidence = results.checks
      .flatMap((c) => c.findings)
      .flatMap((f) => [f.evidence, ...(f.exchanges ?? []).map((x) => x.evidence)])
      .filter((e): e is Evidence => e !== undefined && e.request.truncated === true);
    expect(evidence.length).toBeGreaterThan(0);
    for (const e of evidence) {
      expect(e.request.bodyBytes).toBeGreaterThan(limit);
      expect(e.request.bodySha256).toMatch(/^[0-9a-f]{64}$/);
      expect(e.request.body.length).toBe(EXCERPT_CHARS + 1);
      expect(e.curl).toContain('"@$PAGI_BODY_FILE"');
    }
  });
});
