import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadProfile, profileProblems } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { SPEC_DIR } from '../../core/spec/paths.js';

const read = (name: string) => parseYaml(fs.readFileSync(path.join(SPEC_DIR, 'profiles', `${name}.yaml`), 'utf8'));

describe('profiles', () => {
  it('the reference profile validates against the published profile schema', () => {
    expect(profileProblems(read('reference'))).toEqual([]);
    expect(loadProfile('reference').profile.signature.algorithm.name).toBe('sha256');
  });

  it('a second vendor profile (HMAC-SHA256, sorted fields, upper-case hex) validates too', () => {
    const { profile } = loadProfile('sample-hmac-sorted');
    expect(profileProblems(read('sample-hmac-sorted'))).toEqual([]);
    expect(profile.signature.algorithm.name).toBe('hmac-sha256');
    expect(profile.signature.request.mode).toBe('sortedPairs');
    expect(profile.signature.encoding).toBe('hex-upper');
  });

  it('rejects a profile with an unknown key, a wrong type or a broken consistency rule', () => {
    expect(profileProblems({ ...read('reference'), surprise: 1 }).join()).toMatch(/surprise/);
    const badType = read('reference');
    badType.limits.maxBodyBytes = 'big';
    expect(profileProblems(badType)).not.toEqual([]);
    const inconsistent = read('reference');
    inconsistent.signature.response = { signed: false };
    expect(profileProblems(inconsistent).join()).toMatch(/asResponse/);
    const declines = read('reference');
    declines.payments.testCards.approve = ['4000000000000002'];
    expect(profileProblems(declines).join()).toMatch(/approve 400000\*+0002 matches a decline rule/);
  });

  it('names every alias of the spec exactly once and no limit of the interface', () => {
    const spec = kitSpec();
    const form = spec.operations.get('checkout')!.checkoutForm!;
    for (const name of ['reference', 'sample-hmac-sorted']) {
      const p = read(name);
      expect(Object.keys(p.checkout.aliases).sort(), name).toEqual([...form.aliasNames].sort());
      expect(JSON.stringify(p)).not.toMatch(/maxListLength|maxItems/);
    }
  });
});

describe('profile choices stated in the format', () => {
  it('every personality validates, and each key added for them is optional (the reference holds none)', () => {
    for (const file of fs.readdirSync(path.join(SPEC_DIR, 'profiles')).filter((f) => f.endsWith('.yaml')))
      expect(profileProblems(read(file.replace(/\.yaml$/, ''))), file).toEqual([]);
    const text = fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8');
    expect(text).not.toMatch(
      /leaveOut|formNestedValues|byOperation|precedenceByOperation|emptyResults|ownShape|derived|decimals/,
    );
  });

  it('accepts no decline test card at all', () => {
    const p = read('reference');
    p.payments.testCards.decline = [];
    expect(profileProblems(p)).toEqual([]);
  });

  it('wants every error kind it names defined, and every check order to list each defined kind once', () => {
    const own = read('sha256-pairs-ownshape');
    delete own.errors.kinds.unknownMerchant;
    expect(profileProblems(own).join('\n')).toMatch(
      /errors\.unknownMerchant names the error kind unknownMerchant, which errors\.kinds does not define[\s\S]*errors\.precedence must list every kind of errors\.kinds once; not defined unknownMerchant/,
    );
    const order = read('sha256-pairs-ownshape');
    order.errors.precedenceByOperation.payout = order.errors.precedenceByOperation.payout.filter(
      (k: string) => k !== 'badSignature',
    );
    expect(profileProblems(order).join()).toMatch(
      /precedenceByOperation\.payout must list every kind .*missing badSignature/,
    );
    const wording = read('reference');
    wording.errors.byOperation = { capture: { unknownMerchant: { code: 'X1' } } };
    expect(profileProblems(wording).join()).toMatch(
      /errors\.byOperation\.capture names the error kind unknownMerchant/,
    );
  });

  it('refuses a computed checkout input that also has a fixed value', () => {
    const p = read('sha256-pairs-ownshape');
    p.checkout.derivedGatewayFields.connector_code = '{request.website|host}';
    expect(profileProblems(p).join()).toMatch(
      /derivedGatewayFields\.connector_code is also in checkout\.gatewayFieldValues/,
    );
  });

  it('compiles a notification schema as untrusted input: strict mode, no remote $ref', () => {
    const remote = read('sha256-pairs-ownshape');
    remote.notifications.kinds.payment.ownShape.schema = { $ref: 'https://schemas.example/notification.json' };
    expect(profileProblems(remote).join()).toMatch(
      /notifications\.kinds\.payment\.ownShape\.schema does not compile: .*resolve reference/,
    );
    const kitSchema = read('sha256-pairs-ownshape');
    kitSchema.notifications.kinds.payout.ownShape.schema = {
      $ref: 'https://pagi-conformance.dev/schemas/payout-response.schema.json',
    };
    expect(profileProblems(kitSchema).join()).toMatch(/payout\.ownShape\.schema does not compile/);
    const loose = read('sha256-pairs-ownshape');
    loose.notifications.kinds.payment.ownShape.schema = { type: 'object', required: ['event'], propertiez: {} };
    expect(profileProblems(loose).join()).toMatch(/payment\.ownShape\.schema does not compile: .*strict mode/);
    const local = read('sha256-pairs-ownshape');
    local.notifications.kinds.payment.ownShape.schema = {
      $defs: { text: { type: 'string' } },
      type: 'object',
      properties: { event: { $ref: '#/$defs/text' } },
    };
    expect(profileProblems(local)).toEqual([]);
  });
});
