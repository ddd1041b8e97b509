/**
 * The draft discovery writes (discover/draft.ts): values over the format's defaults, each with its evidence as a
 * YAML comment, open points marked UNKNOWN with what to check, masking of everything but the test cards.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Draft, leafPaths, renderDraft, UNKNOWN_MARK } from '../../discover/draft.js';

const DEFAULTS = {
  format: 5,
  name: 'reference',
  signature: { encoding: 'hex-lower', request: { fields: { capture: ['merchant_id'] } } },
  payments: { testCards: { approve: ['4111111111111111'] }, resultInfo: { approved: { code: '0000', message: 'OK' } } },
  review: { triggers: { amountAtLeast: '100.00' } },
};

describe('the draft', () => {
  it('puts decided values over the defaults, shallow paths first, and leaves a removed optional key out', () => {
    const d = new Draft();
    d.set('payments.resultInfo.approved.code', '00', 'payment answered 00');
    d.set('payments.resultInfo', { approved: { code: '11', message: 'Approved' } }, 'a whole subtree');
    d.remove('review.triggers', 'no amount holds a payment');
    const p = d.assemble(DEFAULTS);
    expect(p.payments).toMatchObject({ resultInfo: { approved: { code: '00', message: 'Approved' } } });
    expect(p.review).toEqual({});
    expect(DEFAULTS.payments.resultInfo.approved.code).toBe('0000'); // defaults untouched
  });

  it('marks every leaf no point covers as UNKNOWN, keeping the default', () => {
    const d = new Draft();
    d.set('signature.encoding', 'hex-upper', 'accepted');
    const p = d.assemble(DEFAULTS);
    d.markUncovered(p, (path) => `check ${path}`);
    expect(d.unknowns()).toBe(leafPaths(p).length - 1);
    expect(d.has('format')).toBe(false);
    expect(d.written('name')).toBeUndefined();
  });

  it('renders each value with its evidence and each open point with UNKNOWN and what to check', () => {
    const d = new Draft();
    d.set('signature.encoding', 'hex-upper', 'POST /v1/capture → HTTP 200 (signed)');
    d.unknown('name', 'name the gateway', 'discovered-gw');
    const p = d.assemble(DEFAULTS);
    const yaml = renderDraft(p, d.all(), ['Profile drafted by a test']);
    expect(yaml).toMatch(/^# Profile drafted by a test/);
    expect(yaml).toMatch(/encoding: hex-upper # POST \/v1\/capture → HTTP 200 \(signed\)/);
    expect(yaml).toMatch(new RegExp(`name: discovered-gw # ${UNKNOWN_MARK} name the gateway`));
    expect(parse(yaml)).toEqual(p);
  });

  it('masks comments, the header and values, but not the test cards a profile must name', () => {
    const d = new Draft();
    d.set('payments.resultInfo.approved.message', 'card 4111111111111111', 'answer showed 4111111111111111');
    const p = d.assemble(DEFAULTS);
    const mask = (text: string) => text.replaceAll('4111111111111111', '411111******1111');
    const yaml = renderDraft(p, d.all(), ['header 4111111111111111'], mask);
    expect(parse(yaml).payments.testCards.approve).toEqual(['4111111111111111']);
    expect(yaml.split('\n').filter((l) => l.includes('4111111111111111'))).toEqual([
      expect.stringMatching(/approve: \[ "4111111111111111" \]/),
    ]);
  });
});
