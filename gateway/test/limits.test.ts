/**
 * The pre-parse bounds on their own: each cap holds exactly at its value, whichever shortcut the count takes
 * (a body too short to exceed a cap, commas before the first array, no `\u` escape at all).
 */
import { describe, expect, it } from 'vitest';
import { bodyProblem, formBodyProblem, jsonBodyProblem, loneSurrogateProblem, type BodyLimits } from '../limits.js';

const LIMITS: BodyLimits = { maxFormFields: 5, maxJsonKeys: 6, maxJsonItems: 4, maxDepth: 3 };

describe('jsonBodyProblem', () => {
  it('keys: at the cap passes, one more is refused (long body: counted)', () => {
    const keys = (n: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`key_${i}`, 'value'])));
    expect(jsonBodyProblem(keys(6), LIMITS)).toBeUndefined();
    expect(jsonBodyProblem(keys(7), LIMITS)).toMatch(/more than 6 keys/);
  });

  it('array elements: counted from the first array on, every array counts one; commas between keys before it do not', () => {
    const lead = '"a":"1","b":"2","c":"3",';
    expect(jsonBodyProblem(`{${lead}"x":[1,2,3]}`, { ...LIMITS, maxJsonKeys: 100 })).toBeUndefined(); // 1 array + 2 commas = 3
    expect(jsonBodyProblem(`{${lead}"x":[1,2,3,4]}`, { ...LIMITS, maxJsonKeys: 100 })).toBeUndefined(); // 4
    expect(jsonBodyProblem(`{${lead}"x":[1,2,3,4,5]}`, { ...LIMITS, maxJsonKeys: 100 })).toMatch(
      /more than 4 array elements/,
    );
    expect(jsonBodyProblem(`{${lead}"x":[1,2],"y":[],"z":[]}`, { ...LIMITS, maxJsonKeys: 100 })).toBeUndefined(); // 2 + 1 + 1
    expect(jsonBodyProblem(`{${lead}"x":[1,2],"y":[],"z":[],"w":[]}`, { ...LIMITS, maxJsonKeys: 100 })).toMatch(
      /more than 4 array elements/,
    );
    // No array: any number of commas.
    expect(jsonBodyProblem(`{${lead.repeat(1)}"d":"4"}`, { ...LIMITS, maxJsonKeys: 100 })).toBeUndefined();
  });

  it('depth: at the cap passes, one deeper is refused, also when the body is barely longer than the cap', () => {
    expect(jsonBodyProblem('{"a":{"b":{}}}', LIMITS)).toBeUndefined();
    expect(jsonBodyProblem('{"a":{"b":{"c":{}}}}', LIMITS)).toMatch(/nested deeper than 3 levels/);
    expect(jsonBodyProblem('[[[[', LIMITS)).toMatch(/nested deeper than 3 levels/);
    expect(jsonBodyProblem('[[[', LIMITS)).toBeUndefined();
  });
});

describe('formBodyProblem and bodyProblem', () => {
  it('fields: at the cap passes, one more is refused, however short', () => {
    expect(formBodyProblem('a&b&c&d&e', LIMITS)).toBeUndefined();
    expect(formBodyProblem('a&b&c&d&e&f', LIMITS)).toMatch(/more than 5 fields/);
    expect(formBodyProblem('&&&&&', LIMITS)).toMatch(/more than 5 fields/);
    expect(formBodyProblem('&&&&', LIMITS)).toBeUndefined();
  });

  it('a form value of JSON text is bounded like a JSON body; bodyProblem reads a body starting with { as JSON', () => {
    expect(formBodyProblem(`x=${encodeURIComponent('{"a":{"b":{"c":{}}}}')}`, LIMITS)).toMatch(
      /form field x: JSON text nested deeper than 3 levels/,
    );
    expect(bodyProblem('{"a":{"b":{"c":{}}}}', LIMITS)).toMatch(/^JSON body nested deeper/);
    expect(bodyProblem('a=1&b=2&c=3&d=4&e=5&f=6', LIMITS)).toMatch(/^form body with more than 5 fields/);
  });
});

describe('loneSurrogateProblem', () => {
  it('finds a lone surrogate only a JSON escape can carry; none without any \\u escape', () => {
    const lone = '{"a":"x\\ud800y"}';
    expect(loneSurrogateProblem(lone, JSON.parse(lone), 'json')).toMatch(/^\/a holds a lone UTF-16 surrogate/);
    const pair = '{"a":"\\ud83d\\ude00"}';
    expect(loneSurrogateProblem(pair, JSON.parse(pair), 'json')).toBeUndefined();
    const plain = '{"a":"plain"}';
    expect(loneSurrogateProblem(plain, JSON.parse(plain), 'json')).toBeUndefined();
  });
});
