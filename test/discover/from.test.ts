/**
 * `pagi-conform profile discover --from PARTIAL` (issue #34, point 2), in this process against the reference gateway:
 * the vendor's stated points seed the probes and are confirmed by them; a point the gateway contradicts is printed
 * with its evidence (exit 1, the draft written with the vendor's value marked CONTRADICTED); a --from file that is not
 * there or not a profile stops the command with exit 2 before anything is sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { main } from '../../cli/main.js';
import { completed } from '../../core/profile/load.js';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { EXIT } from '../../core/types/errors.js';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { tempDir } from '../support/temp.js';

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const keep = (...a: unknown[]) => void (out += `${a.join(' ')}\n`);
  vi.spyOn(console, 'log').mockImplementation(keep);
  vi.spyOn(console, 'error').mockImplementation(keep);
  try {
    return { code: await main(args), out };
  } finally {
    vi.restoreAllMocks();
  }
}

const reference = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
const dir = tempDir('pagi-discover-from-');
let gw: RunningGateway;
let config = '';

/** A partial profile: the labels and the given sections only. */
function partial(name: string, sections: Record<string, unknown>): string {
  const file = path.join(dir, `${name}.yaml`);
  const { format, name: n, version, description } = reference;
  fs.writeFileSync(file, stringify({ format, name: n, version, description, ...sections }));
  return file;
}

beforeAll(async () => {
  gw = await startGateway({ port: 0, host: '127.0.0.1' });
  const merchant = gw.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  config = path.join(dir, 'config.yaml');
  fs.writeFileSync(
    config,
    `merchantId: ${merchant.merchantId}\naccountId: ${account.accountId}\nsecret: ${account.secret}\n` +
      `paymentMethods:\n  valid: ${JSON.stringify(gw.config.apm.paymentMethods)}\n  unknown: PAGI_KIT_UNKNOWN\n`,
  );
});
afterAll(() => gw?.close());

const discover = (from: string, out: string) =>
  cli(['profile', 'discover', '--target', gw.baseUrl, '--config', config, '--from', from, '--out', out]);

describe('profile discover --from', () => {
  it('confirms the card fields and the signature recipe a partial states (exit 0), stated as confirmed', async () => {
    const from = partial('known', { fields: { card: reference.fields.card }, signature: reference.signature });
    const out = path.join(dir, 'known.discovered.yaml');
    const r = await discover(from, out);
    expect(r.out).not.toContain('contradiction:');
    expect(r.code).toBe(EXIT.ok);
    const text = fs.readFileSync(out, 'utf8');
    const draft = parse(text);
    expect(draft.fields.card).toEqual(reference.fields.card);
    expect(draft.signature).toEqual(reference.signature);
    expect(text).toMatch(/number: card_number # from .*known\.yaml, confirmed by the probes: /);
    expect(text).toMatch(/secretJoin: "" # from .*known\.yaml, (confirmed by the probes|not contradicted)/);
    expect(completed(draft).unstated).not.toContain('/fields/card/number');
  }, 120_000);

  it('finds and confirms card field names no common name is, when the partial states them', async () => {
    const card = { ...reference.fields.card, number: 'cc_pan_x', securityCode: 'cc_cvv_x' };
    const served = path.join(dir, 'served.yaml');
    fs.writeFileSync(served, stringify({ ...reference, fields: { ...reference.fields, card } }));
    const other = await startGateway({ port: 0, host: '127.0.0.1', profile: served });
    try {
      const from = partial('own-names', { fields: { card }, signature: reference.signature });
      const out = path.join(dir, 'own-names.discovered.yaml');
      const r = await cli([
        'profile',
        'discover',
        '--target',
        other.baseUrl,
        '--config',
        config,
        '--from',
        from,
        '--out',
        out,
      ]);
      expect(r.out).not.toContain('contradiction:');
      expect(r.out).not.toContain(reference.payments.testCards.approve[0]);
      expect(r.code).toBe(EXIT.ok);
      const text = fs.readFileSync(out, 'utf8');
      expect(text).toMatch(/number: cc_pan_x # from .*own-names\.yaml, confirmed by the probes: /);
      expect(text).toMatch(/securityCode: cc_cvv_x # from .*own-names\.yaml, confirmed by the probes: /);
    } finally {
      await other.close();
    }
  }, 120_000);

  it('reports a stated point the gateway contradicts with its evidence, writes the draft, exit 1', async () => {
    const kinds = { badSignature: { ...reference.errors.kinds.badSignature, code: '9999' } };
    const from = partial('wrong', { errors: { kinds } });
    const out = path.join(dir, 'wrong.discovered.yaml');
    const r = await discover(from, out);
    expect(r.code).toBe(EXIT.failed);
    expect(r.out).toMatch(
      /contradiction: \/errors\/kinds\/badSignature\/code: the vendor's profile states "9999", the gateway answered "1001" \(evidence: .+\)/,
    );
    const text = fs.readFileSync(out, 'utf8');
    expect(parse(text).errors.kinds.badSignature.code).toBe('9999');
    expect(text).toMatch(/CONTRADICTED: the gateway answered "1001"/);
  }, 120_000);

  it('stops with exit 2 and one sentence when --from is not there or not a profile, sending nothing', async () => {
    const missing = await discover(path.join(dir, 'absent.yaml'), path.join(dir, 'absent.out.yaml'));
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.out).toMatch(/Cannot read the profile .*absent\.yaml \(ENOENT\)/);
    const bad = partial('bad', { fields: { card: { number: 42 } } });
    const invalid = await discover(bad, path.join(dir, 'bad.out.yaml'));
    expect(invalid.code).toBe(EXIT.usage);
    expect(invalid.out).toMatch(/The profile .*bad\.yaml is not valid/);
    expect(fs.existsSync(path.join(dir, 'bad.out.yaml'))).toBe(false);
  });
});
