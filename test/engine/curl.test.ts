/**
 * Curl lines with shell variables for the masked card fields (JSON and form bodies, through the egress masking), and
 * the one-line command computing $PAGI_SIGNATURE, run by bash and compared with the kit's own signature.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlLine, curlVariablesFor, signatureCommand } from '../../engine/evidence.js';
import { loadProfile } from '../../core/profile/load.js';
import { sign } from '../../core/signing.js';
import { maskOutgoing, maskText } from '../../core/mask.js';

const VARS = { card_number: 'PAGI_CARD', security_code: 'PAGI_CVC' };

/** What curl would send as its --data-raw argument, expanded by bash. */
function dataOf(curl: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = curl.replace(/^curl .*--data-raw /, 'printf %s ');
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', script], { env: { PATH: process.env.PATH, ...env } }, (e, out) =>
      e ? reject(e) : resolve(out),
    ),
  );
}

describe('curl lines with $PAGI_CARD and $PAGI_CVC', () => {
  it('a JSON body: exported, the variables give back the request as sent; the egress masking leaves them in place', async () => {
    const curl = curlLine(
      'POST',
      'http://127.0.0.1:9/v1/authorise',
      {},
      '{"card_number":"***","security_code":"***","note":"it\'s"}',
      undefined,
      VARS,
    );
    expect(maskText(curl, { fields: Object.keys(VARS) })).toBe(curl);
    expect(maskOutgoing(curl)).toBe(curl);
    expect(await dataOf(curl, { PAGI_CARD: '4111111111111111', PAGI_CVC: '123' })).toBe(
      '{"card_number":"4111111111111111","security_code":"123","note":"it\'s"}',
    );
  });

  it('a form body, and fields without a variable stay ***', async () => {
    const curl = curlLine(
      'POST',
      'http://127.0.0.1:9/v1/authorise',
      {},
      'card_number=***&security_code=***&password=***&x=1',
      undefined,
      VARS,
    );
    expect(maskOutgoing(curl)).toBe(curl);
    expect(await dataOf(curl, { PAGI_CARD: '4111111111111111', PAGI_CVC: '123' })).toBe(
      'card_number=4111111111111111&security_code=123&password=***&x=1',
    );
  });
});

describe('the command computing $PAGI_SIGNATURE', () => {
  it.each(['reference', 'sample-hmac-sorted'])(
    'gives the signature the kit sends, under the %s profile (card fields as variables)',
    async (name) => {
      const { profile } = loadProfile(name);
      const card = profile.fields.card;
      const body = {
        merchant_id: 'M1',
        account_id: 'A1',
        order_no: 'O-1',
        currency: 'USD',
        amount: '10.36',
        [card.number]: '4111111111111111',
        [card.securityCode]: '123',
        note: "it's a=b&c",
      };
      const command = signatureCommand(profile.signature, 'authoriseDirect', body, curlVariablesFor(profile))!;
      expect(maskOutgoing(command)).toBe(command);
      expect(command).not.toContain('4111111111111111');
      const computed = await new Promise<string>((resolve, reject) =>
        execFile(
          'bash',
          ['-c', `${command}; printf %s "$PAGI_SIGNATURE"`],
          { env: { PATH: process.env.PATH, PAGI_CARD: '4111111111111111', PAGI_CVC: '123', PAGI_SECRET: 's3cr3t' } },
          (e, out) => (e ? reject(e) : resolve(out)),
        ),
      );
      expect(computed).toBe(sign(profile.signature, 'request', 'authoriseDirect', body, 's3cr3t'));
    },
  );
});
