/**
 * The catalogue of signature schemes discovery searches (discover/scheme.ts): answers signed by the kit's own
 * signing code under a scheme of the catalogue are identified offline, field lists and their order included.
 */
import { describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  encodeDigest,
  findLists,
  JOINS,
  joinSearch,
  pairsText,
  pairsVariants,
  rankResponseSchemes,
  requestListCandidates,
  responseListOf,
  type ResponseScheme,
  signatureBytes,
  type SignedSample,
} from '../../discover/scheme.js';
import {
  blindCandidates,
  captureCandidates,
  SLOT,
  slotLists,
  sweepCandidates,
} from '../../discover/discoverers/signature-lists.js';
import { SWEEP_BUDGET } from '../../discover/session.js';
import { urlEncodedValue } from '../../core/signing.js';

const SECRET = 'scheme-test-secret';

describe('the scheme catalogue', () => {
  it('states every algorithm the format can: plain SHA-256 with each join (the &key= form too) and HMAC', () => {
    expect(ALGORITHMS).toContainEqual({ name: 'hmac-sha256' });
    for (const join of ['', '|', '&key=']) expect(ALGORITHMS).toContainEqual({ name: 'sha256', secretJoin: join });
    expect(JOINS).toContain('&secret=');
    // Both empty-value rules and both value encodings of each sorted-pairs separator pair.
    const amp = pairsVariants().filter((p) => p.keyValueSeparator === '=' && p.pairSeparator === '&');
    expect(amp.map((p) => `${p.skipEmpty}/${p.valueEncoding}`).sort()).toEqual([
      'false/raw',
      'false/urlEncoded',
      'true/raw',
      'true/urlEncoded',
    ]);
  });

  it('finds the ordered field list that signs a message, and no other of its length', () => {
    const body = { merchant_id: 'M1', account_id: 'A1', order_no: 'O-7', amount: '10.00', note: 'x' };
    const alg = { name: 'sha256' as const, secretJoin: '|' };
    const text = [body.order_no, body.merchant_id, body.amount].join('|');
    const target = signatureBytes(encodeDigest(alg, 'hex-lower', SECRET, text), 'hex-lower')!;
    const lists = findLists(alg, SECRET, '|', 'emptyString', Object.keys(body), body, target, 3);
    expect(lists).toEqual([['order_no', 'merchant_id', 'amount']]);
  });

  it('identifies a field-list response scheme from signed answers of two operations', () => {
    const alg = { name: 'hmac-sha256' as const };
    const capture = { merchant_id: 'M1', account_id: 'A1', return_status: '1', return_message: 'OK' };
    const refund = { merchant_id: 'M1', account_id: 'A1', return_status: '9', return_message: 'E:x' };
    const samples: SignedSample[] = [
      {
        operation: 'capture',
        body: capture,
        signature: encodeDigest(alg, 'hex-upper', SECRET, ['M1', 'A1', '1'].join('#')),
      },
      {
        operation: 'refund',
        body: refund,
        signature: encodeDigest(alg, 'hex-upper', SECRET, ['A1', 'M1', '9', 'E:x'].join('#')),
      },
    ];
    const best = rankResponseSchemes(samples, SECRET)[0]!;
    expect(best).toMatchObject({ algorithm: alg, encoding: 'hex-upper', separator: '#' });
    expect(best.fields.capture).toEqual(['merchant_id', 'account_id', 'return_status']);
    expect(best.fields.refund).toEqual(['account_id', 'merchant_id', 'return_status', 'return_message']);
  });

  it("finds an operation's response list length by length: the shortest that verifies, among eight candidate fields", () => {
    const alg = { name: 'hmac-sha256' as const };
    const scheme: ResponseScheme = {
      algorithm: alg,
      encoding: 'hex-lower',
      separator: '',
      missingField: 'emptyString',
      fields: {},
    };
    const body = {
      merchant_id: 'M1',
      account_id: 'A1',
      order_no: 'O-9',
      transaction_id: 'T-4',
      amount: '7.00',
      currency: 'EUR',
      return_status: '1',
      note: '',
    };
    const five = ['currency', 'order_no', 'amount', 'merchant_id', 'return_status'];
    const signature = encodeDigest(alg, 'hex-lower', SECRET, five.map((f) => body[f as keyof typeof body]).join(''));
    const sample: SignedSample = { operation: 'refund', body, signature };
    expect(responseListOf(scheme, sample, SECRET)).toEqual(five);
    // With no separator an empty field signs nothing: longer lists holding it verify too; the shortest is the list.
    const two = ['order_no', 'amount'];
    const short = encodeDigest(alg, 'hex-lower', SECRET, 'O-97.00');
    expect(
      findLists(alg, SECRET, '', 'emptyString', Object.keys(body), body, signatureBytes(short, 'hex-lower')!, 3),
    ).toContainEqual(['note', 'order_no', 'amount']);
    expect(responseListOf(scheme, { ...sample, signature: short }, SECRET)).toEqual(two);
    expect(
      responseListOf(scheme, { ...sample, signature: encodeDigest(alg, 'hex-lower', SECRET, 'nothing') }, SECRET),
    ).toBeUndefined();
  });

  it('ranks alike with a memo: a ranking over more samples after one over fewer equals a ranking made afresh', () => {
    const alg = { name: 'sha256' as const, secretJoin: '|' };
    const sign = (body: Record<string, string>, fields: string[]) =>
      encodeDigest(alg, 'hex-lower', SECRET, fields.map((f) => body[f]).join('|'));
    const capture = { merchant_id: 'M1', account_id: 'A1', return_status: '1', return_message: 'OK' };
    const refund = { merchant_id: 'M1', account_id: 'A1', order_no: 'O-1', return_status: '1' };
    const payout = { merchant_id: 'M1', request_id: 'R-1', amount: '5.00', return_status: '1' };
    const early: SignedSample[] = [
      { operation: 'capture', body: capture, signature: sign(capture, ['merchant_id', 'return_status']) },
      { operation: 'refund', body: refund, signature: sign(refund, ['order_no', 'merchant_id', 'return_status']) },
    ];
    const all: SignedSample[] = [
      ...early,
      { operation: 'payout', body: payout, signature: sign(payout, ['request_id', 'amount', 'merchant_id']) },
    ];
    const memo = new Map<string, unknown>();
    expect(rankResponseSchemes(early, SECRET, memo)).toEqual(rankResponseSchemes(early, SECRET));
    const size = memo.size;
    expect(size).toBeGreaterThan(0);
    const ranked = rankResponseSchemes(all, SECRET, memo);
    expect(ranked).toEqual(rankResponseSchemes(all, SECRET));
    expect(ranked[0]!.fields.payout).toEqual(['request_id', 'amount', 'merchant_id']);
    // Only the new sample's searches were made: the early ones were read back.
    expect(memo.size).toBeGreaterThan(size);
    expect(rankResponseSchemes(all, SECRET, memo)).toEqual(ranked);
  });

  it('identifies sorted pairs with the secret joined by &key=', () => {
    const alg = { name: 'sha256' as const, secretJoin: '&key=' };
    const rule = pairsVariants().find(
      (p) => p.pairSeparator === '&' && p.skipEmpty && p.valueEncoding === 'urlEncoded',
    )!;
    const body = { merchant_id: 'M1', account_id: 'A1', note: 'a b', empty: '' };
    const sample: SignedSample = {
      operation: 'capture',
      body,
      signature: encodeDigest(alg, 'hex-lower', SECRET, pairsText(rule, body)),
    };
    expect(pairsText(rule, body)).toBe('account_id=A1&merchant_id=M1&note=a%20b');
    const best = rankResponseSchemes([sample], SECRET)[0]!;
    expect(best.algorithm).toEqual(alg);
    expect(best.pairs).toEqual(rule);
  });

  it('finds a plain SHA-256 join outside the catalogue offline, one or two punctuation characters, by elimination', () => {
    const body = { merchant_id: 'M1', account_id: 'A1', return_code: 'S01', return_message: 'Bad signature' };
    // Two-character joins are searched with shorter lists (JOIN_SEARCH_BUDGET): two fields of four here.
    for (const [secretJoin, fields] of [
      ['/', ['merchant_id', 'account_id', 'return_code']],
      ['::', ['account_id', 'return_code']],
    ] as const) {
      expect(JOINS).not.toContain(secretJoin);
      const alg = { name: 'sha256' as const, secretJoin };
      const text = fields.map((f) => body[f as keyof typeof body]).join('|');
      const sample: SignedSample = {
        operation: 'capture',
        body,
        signature: encodeDigest(alg, 'hex-lower', SECRET, text),
      };
      const found = joinSearch(sample, SECRET);
      expect(found.length, secretJoin).toBeGreaterThan(0);
      expect(found[0]!.algorithm, secretJoin).toEqual(alg);
      expect(
        found.some((x) => x.separator === '|' && x.fields.capture?.join() === fields.join()),
        secretJoin,
      ).toBe(true);
    }
    // A digest no join explains (another secret) is explained by none.
    const other: SignedSample = {
      operation: 'capture',
      body,
      signature: encodeDigest({ name: 'sha256', secretJoin: '/' }, 'hex-lower', 'another-secret', 'M1|A1'),
    };
    expect(joinSearch(other, SECRET)).toEqual([]);
  });

  it('URL-encodes a lone surrogate as U+FFFD instead of throwing', () => {
    expect(urlEncodedValue('x\uD800y')).toBe('x%EF%BF%BDy');
    expect(urlEncodedValue('é 😀')).toBe('%C3%A9%20%F0%9F%98%80');
  });

  it('identifies sorted pairs with separators outside the catalogue offline, over the whole punctuation space', () => {
    const rule = {
      mode: 'sortedPairs' as const,
      keyValueSeparator: '%',
      pairSeparator: '?',
      skipEmpty: true,
      exclude: ['encryption_data'],
      valueEncoding: 'urlEncoded' as const,
    };
    expect(pairsVariants().some((p) => p.keyValueSeparator === '%' || p.pairSeparator === '?')).toBe(false);
    const body = { merchant_id: 'M1', account_id: 'A1', return_status: '2', return_message: 'E1:Bad signature' };
    const alg = { name: 'sha256' as const, secretJoin: '&key=' };
    const signature = encodeDigest(alg, 'hex-upper', SECRET, pairsText(rule, body));
    const [best] = rankResponseSchemes(
      [{ operation: 'capture', body: { ...body, encryption_data: signature }, signature }],
      SECRET,
    );
    expect(best).toMatchObject({ algorithm: alg, encoding: 'hex-upper' });
    expect(best!.pairs).toMatchObject({ keyValueSeparator: '%', pairSeparator: '?', valueEncoding: 'urlEncoded' });
    // Pairs joined with nothing between them are in the space too.
    const joined = { ...rule, keyValueSeparator: '=', pairSeparator: '' };
    const bare = encodeDigest(alg, 'hex-upper', SECRET, pairsText(joined, body));
    const [found] = rankResponseSchemes(
      [{ operation: 'capture', body: { ...body, encryption_data: bare }, signature: bare }],
      SECRET,
    );
    expect(found!.pairs).toMatchObject({ keyValueSeparator: '=', pairSeparator: '' });
  });

  it('tries the request one separator away from the recipe an answer showed: any punctuation joins a list or pairs', () => {
    const hmac = { name: 'hmac-sha256' as const };
    const list = sweepCandidates([{ algorithm: hmac, encoding: 'hex-lower', separator: '&' }]);
    const sig = (c: (typeof list)[number]) => c.sig.request as unknown as Record<string, unknown>;
    expect(list.some((c) => sig(c).separator === '*')).toBe(true);
    expect(list.some((c) => sig(c).pairSeparator === '/' && sig(c).keyValueSeparator === '=')).toBe(true);
    expect(list.some((c) => sig(c).pairSeparator === '' && sig(c).keyValueSeparator === '=')).toBe(true);
    expect(list.some((c) => sig(c).keyValueSeparator === '+' && sig(c).pairSeparator === '&')).toBe(true);
    expect(list.every((c) => c.sig.algorithm === hmac && c.sig.encoding === 'hex-lower')).toBe(true);
    expect(new Set(list.map((c) => JSON.stringify(c.sig))).size).toBe(list.length);
  });

  it('with no signed answer, tries the recipes one choice away from the catalogue: any separator, any join of the secret', () => {
    const list = blindCandidates();
    const req = (c: (typeof list)[number]) => c.sig.request as unknown as Record<string, unknown>;
    const join = (c: (typeof list)[number]) => (c.sig.algorithm as { secretJoin?: string }).secretJoin;
    // Values joined by '/', the secret appended; values joined by nothing, the secret after a '.'.
    expect(list.some((c) => req(c).separator === '/' && join(c) === '')).toBe(true);
    expect(list.some((c) => req(c).separator === '' && join(c) === '.')).toBe(true);
    expect(list.some((c) => req(c).separator === '~' && c.sig.algorithm.name === 'hmac-sha256')).toBe(true);
    for (const encoding of ['hex-lower', 'hex-upper', 'base64'])
      expect(list.some((c) => c.sig.encoding === encoding && join(c) === '}')).toBe(true);
    expect(new Set(list.map((c) => JSON.stringify(c.sig))).size).toBe(list.length);
    // The whole search (catalogue, then these) fits the search's own allowance.
    expect(captureCandidates([]).length + list.length).toBeLessThanOrEqual(SWEEP_BUDGET);
  });

  it("tries a request list leaving out one key field with another of the request's, and slot lists holding the selector", () => {
    const key = ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'];
    const canonical = [['merchant_id', 'account_id', 'order_no', 'amount', 'currency']];
    const lists = requestListCandidates(key, canonical, ['payment_method', 'notify_url'], [], 250).map((l) => l.join());
    // An APM list that signs the payment method but not the currency.
    expect(lists).toContain('merchant_id,account_id,order_no,amount,payment_method');
    expect(lists).toContain('merchant_id,account_id,order_no,amount,currency,payment_method');
    const slots = slotLists('payment_method');
    expect(slots.slice(0, slotLists().length)).toEqual(slotLists());
    expect(slots.some((l) => l.join() === `${SLOT}1,${SLOT}2,merchant_id,account_id,payment_method`)).toBe(true);
    expect(slotLists().some((l) => l.includes('payment_method'))).toBe(false);
  });
});
