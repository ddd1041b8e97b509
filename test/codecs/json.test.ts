import { describe, expect, it } from 'vitest';
import { duplicateMembers, MAX_DUPLICATES } from '../../core/codecs/json.js';
import { decodeExternal } from '../../engine/decode.js';

describe('duplicateMembers', () => {
  it('finds nothing in objects whose names are unique, at any depth', () => {
    expect(duplicateMembers('{"a":1,"b":{"a":2,"c":[{"a":3},{"a":4}]},"s":"{\\"a\\":1,\\"a\\":2}"}')).toEqual([]);
    expect(duplicateMembers('[1,"a",{"x":null}]')).toEqual([]);
  });

  it('names the object and the repeated name, at the top and nested in arrays and objects', () => {
    expect(duplicateMembers('{"a":1,"a":2}')).toEqual([{ pointer: '', name: 'a' }]);
    expect(duplicateMembers('{"list":[{"id":"1"},{"id":"2","ok":true,"id":"3"}],"o":{"p/q":{"n~":1,"n~":2}}}')).toEqual(
      [
        { pointer: '/list/1', name: 'id' },
        { pointer: '/o/p~1q', name: 'n~' },
      ],
    );
  });

  it('compares names after decoding their escapes, and is not fooled by escaped quotes or values', () => {
    expect(duplicateMembers('{"a":1,"\\u0061":2}')).toEqual([{ pointer: '', name: 'a' }]);
    expect(duplicateMembers('{"a\\"":"a","b":"\\\\","a\\"":0}')).toEqual([{ pointer: '', name: 'a"' }]);
    expect(duplicateMembers('{"a":"a","b":"a"}')).toEqual([]);
  });

  it('reports a name repeated three times once, and at most MAX_DUPLICATES', () => {
    expect(duplicateMembers('{"a":1,"a":2,"a":3}')).toEqual([{ pointer: '', name: 'a' }]);
    const many = `{${Array.from({ length: MAX_DUPLICATES + 10 }, (_, i) => `"k${i}":1,"k${i}":2`).join(',')}}`;
    expect(duplicateMembers(many)).toHaveLength(MAX_DUPLICATES);
  });

  it('is recorded on the decoded body only when there is one', async () => {
    expect(await decodeExternal('application/json', '{"a":1,"a":2}', false)).toEqual({
      kind: 'json',
      value: { a: 2 },
      duplicates: [{ pointer: '', name: 'a' }],
    });
    expect(await decodeExternal('application/json', '{"a":1}', false)).toEqual({ kind: 'json', value: { a: 1 } });
  });
});
