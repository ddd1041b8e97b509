/**
 * The draft discovery writes (discover/draft.ts): values over the format's defaults, each with its evidence as a
 * YAML comment, open points left out (profile format 6) and listed as questions marked UNKNOWN, masking of everything
 * but the test cards.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readProfile } from '../../core/profile/load.js';
import { Draft, leafPaths, leaveOutOpen, leftOutLines, renderDraft, UNKNOWN_MARK } from '../../discover/draft.js';
import { shipped } from '../profile/history.js';

const DEFAULTS = {
  format: 7,
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

  it('marks every leaf no point covers as UNKNOWN, but the format number', () => {
    const d = new Draft();
    d.set('signature.encoding', 'hex-upper', 'accepted');
    const p = d.assemble(DEFAULTS);
    d.markUncovered(p, (path) => `check ${path}`);
    // Every leaf but the one decided and the format.
    expect(d.unknowns()).toBe(leafPaths(p).length - 2);
    expect(d.all().some((x) => x.path === 'format')).toBe(false);
    d.unknown('format', 'never a question');
    expect(d.all().some((x) => x.path === 'format')).toBe(false);
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

describe('the draft states only what evidence decided', () => {
  /** A draft of the reference profile where a few points are decided, the rest left open as discovery leaves them. */
  function reviewed() {
    const defaults = shipped('reference');
    const d = new Draft();
    d.set('statusValues.payment_status.captured', '4000', 'query after capture showed 4000');
    d.set('signature.encoding', defaults.signature.encoding, 'POST /v1/capture → HTTP 200 (signed)');
    d.unknown(
      'requestMedia.types.capture',
      'both media are read for capture',
      'json',
      'json: HTTP 200; form: HTTP 200',
    );
    d.unknown('statusValues.order_status.approved', 'no probe saw it: a value no other meaning of the field has', '7');
    d.unknown('name', 'name the gateway', 'discovered-gw');
    d.unknown('version', 'the profile version', '0.1.0');
    d.unknown('description', 'describe the gateway', 'a draft');
    d.markUncovered(d.assemble(defaults), () => 'no probe decides this point: state it if you know it');
    const stated = leaveOutOpen(d.assemble(defaults), d.all());
    return { d, defaults, ...stated };
  }

  it('leaves every open point without evidence out: the loader reads each as not stated, the draft stays valid', () => {
    const { profile, leftOut, d } = reviewed();
    const read = readProfile(profile);
    expect(read.problems).toEqual([]);
    expect(profile.format).toBe(7);
    // Decided values and partial findings with their evidence are stated; the labels too.
    expect((profile as any).statusValues.payment_status.captured).toBe('4000');
    expect((profile as any).requestMedia.types.capture).toBe('json');
    expect(profile.name).toBe('discovered-gw');
    // A value chosen only to be distinct is no finding: left out.
    expect((profile as any).statusValues.order_status?.approved).toBeUndefined();
    expect(read.unstated).toContain('/statusValues/order_status/approved');
    expect(read.unstated).not.toContain('/statusValues/payment_status/captured');
    expect(read.unstated.length).toBeGreaterThan(100);
    // Every open point is either left out (listed) or kept with its value on a marked line.
    const at = (path: string) => path.split('.').reduce<any>((node, k) => node?.[k], profile);
    const kept = d.all().filter((p) => p.unknown && leftOut.every((l) => l.point !== p));
    for (const p of kept) expect(at(p.path), p.path).toBeDefined();
    for (const l of leftOut) expect(at(l.point.path), l.point.path).toBeUndefined();
  });

  it('leaves a partial finding shown only (Draft.partial) out, and lists it with its value; a map left empty goes', () => {
    const defaults = shipped('reference');
    const d = new Draft();
    d.partial('payout.failureTypes', 'list every failure type', ['BENEFICIARY_REJECTED'], 'a payout failed: HTTP 200');
    for (const key of Object.keys(defaults.notifications.retry))
      d.partial(`notifications.retry.${key}`, 'measured, not decided', 1, 'delays 103 ms');
    const { profile, leftOut } = leaveOutOpen(d.assemble(defaults), d.all());
    expect((profile as any).payout.failureTypes).toBeUndefined();
    expect((profile as any).notifications.retry).toBeUndefined();
    const read = readProfile(profile);
    expect(read.problems).toEqual([]);
    expect(read.unstated).toContain('/payout/failureTypes');
    expect(leftOutLines(leftOut).find((l) => l.includes(' payout.failureTypes?'))).toContain(
      '(partial finding: ["BENEFICIARY_REJECTED"])',
    );
  });

  it('leaves a whole top-level section out when a row that decides it stops, and only its undecided parts when another row decided some', () => {
    const defaults = shipped('reference');
    const run = (decide: (d: Draft) => void) => {
      const d = new Draft();
      d.unknown('payments', 'no payment with the test cards of the list was made');
      decide(d);
      const assembled = d.assemble(defaults);
      d.splitOpen(assembled);
      d.markUncovered(assembled, () => 'no probe decides this point');
      return { d, ...leaveOutOpen(d.assemble(defaults), d.all()) };
    };
    const none = run(() => {});
    expect((none.profile as any).payments).toBeUndefined();
    expect(readProfile(none.profile).unstated).toContain('/payments/resultInfo/approved/code');
    const some = run((d) => d.set('payments.risk.provider', 'fraudguard', 'risk_provider of a checkout answer'));
    expect((some.profile as any).payments).toEqual({ risk: { provider: 'fraudguard' } });
    const read = readProfile(some.profile);
    expect(read.problems).toEqual([]);
    expect(read.unstated).toContain('/payments/testCards/approve');
    expect(read.unstated).not.toContain('/payments/risk/provider');
    // Each part left out is a question with the stopped row's words; the count equals the lines marked.
    expect(leftOutLines(some.leftOut).find((l) => l.includes(' payments.testCards?'))).toContain(
      'No payment with the test cards of the list was made',
    );
    const yaml = renderDraft(some.profile, some.d.all(), leftOutLines(some.leftOut));
    expect(yaml.split('\n').filter((l) => l.includes(UNKNOWN_MARK)).length).toBe(some.d.unknowns());
  });

  it('lists each point left out as a question with its evidence, grouped by what a person decides; the count equals the lines marked', () => {
    const { profile, leftOut, d } = reviewed();
    const lines = leftOutLines(leftOut);
    expect(lines).toContain('Status values: which value of each status field means what?');
    expect(lines).toContain(
      'Notifications: which notifications are sent, when, in which form, how signed and how retried?',
    );
    const question = lines.find((l) => l.includes('statusValues.order_status.approved'))!;
    expect(question).toBe(
      `  ${UNKNOWN_MARK} what is statusValues.order_status.approved? No probe saw it: a value no other meaning of the field has. (partial finding: "7")`,
    );
    expect(lines.find((l) => l.includes(' notifications.method?'))).toMatch(
      /^ {2}UNKNOWN: what is notifications\.method\? No probe decides this point: state it if you know it\. \(format default, not applied: "[^"]+"\)$/,
    );
    // Each group's questions sit under their heading.
    const heading = lines.indexOf('Status values: which value of each status field means what?');
    expect(lines[heading + 1]).toMatch(/^ {2}UNKNOWN: what is statusValues\./);
    const yaml = renderDraft(profile, d.all(), ['Profile drafted by a test', ...lines]);
    const marked = yaml.split('\n').filter((l) => l.includes(UNKNOWN_MARK));
    expect(marked.length).toBe(d.unknowns());
    expect(marked.some((l) => /^format:/.test(l))).toBe(false);
    expect(parse(yaml)).toEqual(profile);
  });
});
