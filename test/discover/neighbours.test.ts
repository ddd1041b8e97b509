/**
 * Neighbours of the reference personality (issue #34, point 3): the reference gateway serves the reference profile
 * with ONE choice changed, discovery runs in process against it, and every value the draft states (a point not left
 * UNKNOWN) equals the neighbour's truth, leaf by leaf. The card neighbour (`pan`, month `M`, year `YY`) also makes a
 * payment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { leafEquals, profileLeafValues } from '../../core/profile/agreement.js';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { type DiscoveryResult, discoverProfile, DISCOVERERS } from '../../discover/index.js';
import { discoverersFor, servedDiscovery } from '../support/discover-served.js';
import { tempDir } from '../support/temp.js';

const dir = tempDir('pagi-discover-neighbours-');
const gateways: RunningGateway[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
});

type Profile = Record<string, any>;

/** The reference profile with one choice changed, written to the temp folder. */
function neighbour(name: string, change: (p: Profile) => void): { file: string; truth: Profile } {
  const p = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  p.name = name;
  change(p);
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, stringify(p));
  return { file, truth: p };
}

/** Serve a neighbour and discover it with the rows of `ids` (and the rows they read), or every row. */
async function discover(file: string, ids?: readonly string[]): Promise<DiscoveryResult> {
  const gw = await startGateway({ port: 0, host: '127.0.0.1', profile: file });
  gateways.push(gw);
  return discoverAt(gw, ids);
}

async function discoverAt(gw: RunningGateway, ids?: readonly string[]): Promise<DiscoveryResult> {
  return discoverProfile({
    ...servedDiscovery(gw, 'NBR'),
    notify: { listenOn: '127.0.0.1:0' },
    table: ids ? discoverersFor(ids) : DISCOVERERS,
  });
}

/** Stated leaves of the draft that differ from the truth (`path: stated ≠ truth`). */
function wrongStated(found: DiscoveryResult, truth: Profile, under = ''): string[] {
  const want = profileLeafValues(truth);
  const out: string[] = [];
  for (const p of found.points) {
    if (p.unknown || p.value === undefined || !p.path.startsWith(under)) continue;
    for (const [leaf, value] of profileLeafValues(p.value, p.path)) {
      if (!want.has(leaf) && ![...want.keys()].some((k) => k.startsWith(`${leaf}.`))) continue;
      const expected = want.has(leaf) ? want.get(leaf) : getAt(truth, leaf);
      if (!leafEquals(leaf, value, expected))
        out.push(`${leaf}: ${JSON.stringify(value)} ≠ ${JSON.stringify(expected)}`);
    }
  }
  return out;
}

function getAt(root: unknown, dotted: string): unknown {
  let node = root;
  for (const part of dotted.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return node;
}

const stated = (found: DiscoveryResult, at: string) => found.points.find((p) => p.path === at && !p.unknown);

describe('discovery of the reference personality with one choice changed', () => {
  it('card number field `pan`, month `M`, year `YY`: found, stated as served, and a payment made', {
    timeout: 120_000,
  }, async () => {
    const { file, truth } = neighbour('card-pan-m-yy', (p) => {
      p.fields.card.number = 'pan';
      p.fields.card.expiryMonthFormat = 'M';
      p.fields.card.expiryYearFormat = 'YY';
    });
    const found = await discover(file, ['payments']);
    expect(wrongStated(found, truth, 'fields.card')).toEqual([]);
    for (const leaf of ['number', 'expiryMonth', 'expiryYear', 'securityCode', 'expiryMonthFormat', 'expiryYearFormat'])
      expect(stated(found, `fields.card.${leaf}`), leaf).toBeDefined();
    expect(found.points.find((p) => p.path === 'payments.testCards.approve' && !p.unknown)).toBeDefined();
  });

  it('a month field no list holds, named by the refusal (a message pinned as a prefix carries the detail)', {
    timeout: 120_000,
  }, async () => {
    const { file, truth } = neighbour('card-month-named', (p) => {
      p.fields.card.expiryMonth = 'exp_mm';
      p.errors.kinds.invalidInput.pinned = 'prefix';
    });
    const found = await discover(file, ['payments']);
    expect(wrongStated(found, truth, 'fields.card')).toEqual([]);
    expect(stated(found, 'fields.card.expiryMonth')?.value).toBe('exp_mm');
  });
});

describe('errors told apart by status, code and message together', () => {
  it('one code shared by two kinds (unknownPath answered with unknownRecord’s code): each stated as served', {
    timeout: 180_000,
  }, async () => {
    const { file, truth } = neighbour('shared-code', (p) => {
      p.errors.kinds.unknownPath.code = p.errors.kinds.unknownRecord.code;
    });
    const found = await discover(file);
    expect(wrongStated(found, truth, 'errors')).toEqual([]);
    expect(stated(found, 'errors.kinds.unknownPath.code')?.value).toBe(truth.errors.kinds.unknownRecord.code);
    expect(stated(found, 'errors.kinds.unknownRecord.code')?.value).toBe(truth.errors.kinds.unknownRecord.code);
  });

  it('a too-large body answered with invalidInput’s code (another status and message): the limit and both kinds', {
    timeout: 180_000,
  }, async () => {
    const { file, truth } = neighbour('shared-code-size', (p) => {
      p.errors.kinds.bodyTooLarge.code = p.errors.kinds.invalidInput.code;
    });
    const found = await discover(file);
    expect(wrongStated(found, truth, 'errors')).toEqual([]);
    expect(wrongStated(found, truth, 'limits')).toEqual([]);
    expect(stated(found, 'errors.kinds.bodyTooLarge.code')?.value).toBe(truth.errors.kinds.invalidInput.code);
    expect(stated(found, 'limits.maxBodyBytes')?.value).toBe(truth.limits.maxBodyBytes);
  });
});

describe('every notification kind seen', () => {
  // The reference gateway notifies after the payment operations only (a review sends none).
  for (const sentAfter of [
    ['authoriseDirect', 'checkout'],
    ['authoriseApm', 'checkout'],
  ])
    it(`payment notifications after ${sentAfter.join(' and ')} only: stated as served`, {
      timeout: 180_000,
    }, async () => {
      const { file, truth } = neighbour(`notify-${sentAfter.join('-').toLowerCase()}`, (p) => {
        p.notifications.kinds.payment.sentAfter = sentAfter;
      });
      const found = await discover(file, ['notifications']);
      expect(found.problems).toEqual([]);
      expect(wrongStated(found, truth, 'notifications')).toEqual([]);
      expect(stated(found, 'notifications.kinds.payment.sentAfter')?.value).toEqual(sentAfter);
    });

  it('no payment notified at all: the payment kind left undecided, never an empty list', {
    timeout: 180_000,
  }, async () => {
    const gw = await startGateway({ port: 0, host: '127.0.0.1', fault: 'notification-never-sent' });
    gateways.push(gw);
    const found = await discoverAt(gw, ['notifications']);
    expect(found.problems.filter((p) => /sentAfter/.test(p))).toEqual([]);
    expect(stated(found, 'notifications.kinds.payment.sentAfter')).toBeUndefined();
    expect(found.points.find((p) => p.path === 'notifications.kinds.payment')?.unknown).toMatch(/no payment/);
  });
});

describe('nested values of a form body', () => {
  for (const mode of ['text', 'decoded'])
    it(`formNestedValues ${mode}, no signature covering a nested value: told by the checkout page's echo`, {
      timeout: 120_000,
    }, async () => {
      const { file, truth } = neighbour(`form-nested-${mode}`, (p) => {
        p.requestMedia.formNestedValues = mode;
      });
      const found = await discover(file, ['formNested']);
      expect(wrongStated(found, truth, 'requestMedia')).toEqual([]);
      expect(stated(found, 'requestMedia.formNestedValues')?.value).toBe(mode);
    });
});

describe('the signature recipe found by elimination where the catalogue and the signed answers fall short', () => {
  // The reference's errors carry no signature: until a capture is taken no answer is signed.
  for (const [name, change] of [
    ['the secret joined by "."', (p: Profile) => (p.signature.algorithm.secretJoin = '.')],
    ['the values joined by "/"', (p: Profile) => (p.signature.request.separator = '/')],
  ] as const)
    it(`${name}, no answer signed: found one choice away from the catalogue`, { timeout: 120_000 }, async () => {
      const { file, truth } = neighbour(`sig-${name.replace(/\W+/g, '-')}`, change);
      const found = await discover(file, ['signature']);
      expect(wrongStated(found, truth, 'signature')).toEqual([]);
      expect(stated(found, 'signature.algorithm')?.value).toEqual(truth.signature.algorithm);
      expect(stated(found, 'signature.request.fields.capture')?.value).toEqual(truth.signature.request.fields.capture);
    });

  it('a header required, its absence refused as an unknown record after the signature: the header and its refusal', {
    timeout: 180_000,
  }, async () => {
    const { file, truth } = neighbour('header-after-signature', (p) => {
      p.requestHeaders = { headers: { 'X-Merchant-Id': '{request.merchant_id}' }, onMissing: 'unknownRecord' };
    });
    const found = await discover(file);
    expect(wrongStated(found, truth, 'requestHeaders')).toEqual([]);
    expect(stated(found, 'requestHeaders.headers')?.value).toEqual(truth.requestHeaders.headers);
    expect(stated(found, 'requestHeaders.onMissing')?.value).toBe('unknownRecord');
  });
});
