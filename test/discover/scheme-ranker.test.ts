/**
 * The response schemes ranked on a thread of their own (discover/scheme-ranker.ts): the thread's ranking is the
 * calling thread's, and a ranker whose thread stopped ranks in the calling thread.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { encodeDigest, rankResponseSchemes, type SignedSample } from '../../discover/scheme.js';
import { createSchemeRanker } from '../../discover/scheme-ranker.js';

const SECRET = 'ranker-test-secret';
const alg = { name: 'hmac-sha256' as const };
const capture = { merchant_id: 'M1', account_id: 'A1', return_status: '1', return_message: 'OK' };
const refund = { merchant_id: 'M1', account_id: 'A1', order_no: 'O-3', return_status: '1' };
const samples: SignedSample[] = [
  { operation: 'capture', body: capture, signature: encodeDigest(alg, 'base64', SECRET, 'M1,A1,1') },
  { operation: 'refund', body: refund, signature: encodeDigest(alg, 'base64', SECRET, 'O-3,M1') },
];

describe('the scheme ranker', () => {
  const ranker = createSchemeRanker();
  afterAll(() => ranker.close());

  it("ranks on its thread as the calling thread does, the samples' other members left out", async () => {
    const expected = rankResponseSchemes(samples, SECRET);
    expect(expected[0]).toMatchObject({
      separator: ',',
      fields: { capture: ['merchant_id', 'account_id', 'return_status'] },
    });
    const withExchange = samples.map((x) => ({ ...x, exchange: { unrelated: () => 'not cloneable' } }));
    expect(await ranker.rank(withExchange, SECRET)).toEqual(expected);
    expect(ranker.onThread).toBe(true);
    // Again, from the thread's memo.
    expect(await ranker.rank(samples, SECRET)).toEqual(expected);
  });

  it('ranks in the calling thread once its thread is gone', async () => {
    const gone = createSchemeRanker();
    await gone.close();
    expect(gone.onThread).toBe(false);
    expect(await gone.rank(samples, SECRET)).toEqual(rankResponseSchemes(samples, SECRET));
  });
});
