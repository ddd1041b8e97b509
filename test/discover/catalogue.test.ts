/**
 * The catalogue row states a kind's HTTP status only from an answer that carries it: where the capture words a wrong
 * signature its own way in an HTTP 200 body, the operations sharing the kind's common wording as HTTP errors show
 * the status, and it is stated only when they agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { discoverProfile } from '../../discover/index.js';
import { catalogueDiscoverer } from '../../discover/discoverers/catalogue.js';
import { errorsDiscoverer } from '../../discover/discoverers/errors.js';
import { signatureDiscoverer } from '../../discover/discoverers/signature.js';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { servedDiscovery } from '../support/discover-served.js';
import { tempDir } from '../support/temp.js';

const dir = tempDir('pagi-discover-catalogue-');
const closing: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await Promise.all(closing.map((c) => c()));
});

async function serve(change: (p: Record<string, any>) => void): Promise<RunningGateway> {
  const p = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  change(p);
  const file = path.join(dir, `catalogue-${closing.length}.yaml`);
  fs.writeFileSync(file, stringify(p));
  const gw = await startGateway({ port: 0, host: '127.0.0.1', profile: file });
  closing.push(() => gw.close());
  return gw;
}

async function statusOf(gw: RunningGateway) {
  const found = await discoverProfile({
    ...servedDiscovery(gw, 'CAT'),
    table: [signatureDiscoverer, errorsDiscoverer, catalogueDiscoverer],
  });
  return {
    status: found.points.find((p) => p.path === 'errors.kinds.badSignature.status'),
    code: found.points.find((p) => p.path === 'errors.kinds.badSignature.code'),
  };
}

/** The batches refuse in an HTTP 200 body, the capture and the cancel wording a wrong signature their own way. */
const batchesInBody = (p: Record<string, any>) => {
  for (const op of ['capture', 'review', 'cancel', 'refund']) p.errors.refusalForms[op] = ['statusInBody'];
  p.errors.byOperation = {
    capture: { badSignature: { code: 'C401', message: 'Capture signature mismatch' } },
    cancel: { badSignature: { code: 'V401', message: 'Cancel signature mismatch' } },
  };
};

describe("a kind's HTTP status in the catalogue", () => {
  it('is stated from the operations of the common wording refusing as HTTP errors', { timeout: 120_000 }, async () => {
    const gw = await serve((p) => {
      batchesInBody(p);
      p.errors.kinds.badSignature.status = 403;
    });
    const { status, code } = await statusOf(gw);
    expect(code?.value).toBe(gw.profile.errors.kinds.badSignature.code);
    expect(status?.unknown).toBeUndefined();
    expect(status?.value).toBe(403);
    expect(status?.evidence).toMatch(/operations: POST .* HTTP 403/);
  });

  it('is left unstated where every operation of the common wording refuses in an HTTP 200 body', {
    timeout: 120_000,
  }, async () => {
    const gw = await serve((p) => {
      batchesInBody(p);
      for (const op of ['authoriseDirect', 'checkout', 'retrievalTrans', 'retrievalRefund'])
        p.errors.refusalForms[op] = op === 'authoriseDirect' ? ['statusInBody', 'httpError'] : ['statusInBody'];
      p.errors.refusalForms.payout = ['failureType'];
      // The APM payment refuses as an HTTP error (the interface's rule): here in a wording of its own.
      p.errors.byOperation.authoriseApm = { badSignature: { code: 'A401', message: 'Payment signature mismatch' } };
    });
    const { status } = await statusOf(gw);
    expect(status?.unknown).toMatch(/HTTP 200 body/);
  });
});
