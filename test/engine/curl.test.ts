/** Curl lines with shell variables for the masked card fields: JSON and form bodies, through the egress masking. */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlLine } from '../../src/engine/evidence.js';
import { maskOutgoing, maskText } from '../../src/mask.js';

const VARS = { card_number: 'PAGI_CARD', security_code: 'PAGI_CVC' };

/** What curl would send as its --data-raw argument, expanded by bash. */
function dataOf(curl: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = curl.replace(/^curl .*--data-raw /, 'printf %s ');
  return new Promise((resolve, reject) => execFile('bash', ['-c', script], { env: { PATH: process.env.PATH, ...env } }, (e, out) => (e ? reject(e) : resolve(out))));
}

describe('curl lines with $PAGI_CARD and $PAGI_CVC', () => {
  it('a JSON body: exported, the variables give back the request as sent; the egress masking leaves them in place', async () => {
    const curl = curlLine('POST', 'http://127.0.0.1:9/v1/authorise', {}, '{"card_number":"***","security_code":"***","note":"it\'s"}', undefined, VARS);
    expect(maskText(curl, { fields: Object.keys(VARS) })).toBe(curl);
    expect(maskOutgoing(curl)).toBe(curl);
    expect(await dataOf(curl, { PAGI_CARD: '4111111111111111', PAGI_CVC: '123' })).toBe('{"card_number":"4111111111111111","security_code":"123","note":"it\'s"}');
  });

  it('a form body, and fields without a variable stay ***', async () => {
    const curl = curlLine('POST', 'http://127.0.0.1:9/v1/authorise', {}, 'card_number=***&security_code=***&password=***&x=1', undefined, VARS);
    expect(maskOutgoing(curl)).toBe(curl);
    expect(await dataOf(curl, { PAGI_CARD: '4111111111111111', PAGI_CVC: '123' })).toBe('card_number=4111111111111111&security_code=123&password=***&x=1');
  });
});
