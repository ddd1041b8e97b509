/** The order of the checks discovery states (discover/discoverers/catalogue.ts): only what two-fault requests told. */
import { describe, expect, it } from 'vitest';
import { orderKinds, undecidedPairs } from '../../discover/discoverers/catalogue.js';

const order = [
  'unknownPath',
  'methodNotAllowed',
  'bodyTooLarge',
  'malformedBody',
  'badSignature',
  'refusedAddress',
  'overLimit',
  'invalidInput',
] as const;
const pair = (winner: (typeof order)[number], loser: (typeof order)[number]) => ({
  first: winner,
  second: loser,
  winner,
  evidence: '',
});

describe('the precedence of error kinds a draft states', () => {
  it('leaves open every pair no request with both faults decided, directly or through another kind', () => {
    const decided = [
      pair('badSignature', 'overLimit'),
      pair('overLimit', 'invalidInput'),
      pair('badSignature', 'refusedAddress'),
      pair('bodyTooLarge', 'malformedBody'),
      pair('unknownPath', 'methodNotAllowed'),
    ];
    const stated = orderKinds(order, decided);
    // badSignature before invalidInput follows from the two pairs; refusedAddress against overLimit and invalidInput
    // does not.
    expect(undecidedPairs(stated, decided)).toEqual([
      ['refusedAddress', 'overLimit'],
      ['refusedAddress', 'invalidInput'],
    ]);
    expect(undecidedPairs(stated, [...decided, pair('refusedAddress', 'overLimit')])).toEqual([]);
  });

  it("takes from the format the place of a request's path, method and body before its fields, and path and method before the body", () => {
    const decided = [pair('badSignature', 'invalidInput')];
    const stated = orderKinds(
      ['unknownPath', 'methodNotAllowed', 'bodyTooLarge', 'malformedBody', 'badSignature', 'invalidInput'],
      decided,
    );
    expect(undecidedPairs(stated, decided)).toEqual([
      ['unknownPath', 'methodNotAllowed'],
      ['bodyTooLarge', 'malformedBody'],
    ]);
  });
});
