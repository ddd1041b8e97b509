/**
 * The pre-flight's reading of answers: an authentication refusal (whatever HTTP status the profile's refusal comes
 * with), a target that serves no operation, or answers to judge as usual (a decline, an unknown record, a failed item).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { classify, credentialSources, errorKindOf, verdictOfPreflight } from '../../engine/preflight.js';
import { defaults, type RunOptions } from '../../core/config/options.js';
import type { DecodedBody, Exchange, OperationKey, RunConfigView } from '../../core/model.js';
import { loadProfile, type Profile } from '../../core/profile/load.js';
import { tempFile } from '../support/temp.js';

const reference = loadProfile('reference').profile;
const sample = loadProfile('sample-hmac-sorted').profile;
const base = 'http://127.0.0.1:8080';

function answer(status: number, contentType: string, body: string, operation: OperationKey = 'capture'): Exchange {
  const decoded: DecodedBody = /json/.test(contentType)
    ? (() => {
        try {
          return { kind: 'json' as const, value: JSON.parse(body) };
        } catch {
          return { kind: 'undecodable' as const, format: 'json' as const, problem: 'not JSON' };
        }
      })()
    : /xml/.test(contentType)
      ? {
          kind: 'xml' as const,
          root: 'respon',
          value: Object.fromEntries([...body.matchAll(/<(\w+)>([^<]*)<\/\1>/g)].map((m) => [m[1]!, m[2]!])),
        }
      : { kind: 'undecodable' as const, format: 'html' as const, problem: 'page not read' };
  const url = `${base}/v1/${operation}`;
  return {
    id: `${operation}#1`,
    operation,
    request: { method: 'POST', url, headers: {}, body: {}, bodyText: '{}', encoding: 'json' },
    response: { status, headers: { 'content-type': contentType }, bodyText: body, truncated: false, decoded },
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    evidence: { request: { method: 'POST', url, headers: {}, body: '{}' }, curl: '' },
  };
}

function noAnswer(operation: OperationKey): Exchange {
  const x = answer(200, 'application/json', '{}', operation);
  delete x.response;
  x.error = { kind: 'network', message: 'UND_ERR_SOCKET: other side closed' };
  return x;
}

/** The profile with badSignature answered as HTTP 200 and a failed return_status (a refusal form gateways use). */
const okRefusal: Profile = {
  ...reference,
  errors: {
    ...reference.errors,
    kinds: { ...reference.errors.kinds, badSignature: { status: 200, code: '1001', message: 'Invalid signature' } },
  },
};
const json = 'application/json';
const config = { baseUrl: base } as RunConfigView;
const options = { ...defaults(), merchantId: 'M1', accountId: 'A1', secret: 's3cret-value' } as RunOptions;

describe('pre-flight answers', () => {
  it("reads the profile's badSignature as an authentication refusal, whatever HTTP status it comes with", () => {
    expect(
      classify(reference, answer(401, json, '{"return_status":"0","return_message":"1001:Invalid signature"}')),
    ).toBe('authRefusal');
    expect(
      classify(
        okRefusal,
        answer(200, json, '{"merchant_id":"M1","return_status":"0","return_message":"1001:Invalid signature"}'),
      ),
    ).toBe('authRefusal');
    expect(
      classify(sample, answer(403, json, '{"return_status":"2","return_message":"E_SIGNATURE:Signature mismatch"}')),
    ).toBe('authRefusal');
    expect(classify(reference, answer(401, 'text/plain', 'Unauthorized'))).toBe('authRefusal');
    // The direct payment's XML refusal carries the code in result_info.
    expect(
      classify(
        reference,
        answer(
          401,
          'application/xml',
          '<respon><order_status>0</order_status><result_info>1001:Invalid signature</result_info></respon>',
          'authoriseDirect',
        ),
      ),
    ).toBe('authRefusal');
  });

  it('reads the code of an HTML page as the page shows it, character references decoded', () => {
    const page = answer(400, 'text/html', '<html><body><p id=error>&#49;002&colon;Invalid input</p></body></html>');
    page.response!.decoded = {
      kind: 'html',
      form: {
        forms: 0,
        method: '',
        action: '',
        autoSubmit: false,
        autoSubmitBy: 'none',
        inputs: {},
        inputTypes: {},
        inputOrder: [],
      },
    };
    expect(errorKindOf(reference, page)).toBe('invalidInput');
  });

  it('does not take a legitimate decline, a failed item or an unknown record for a set-up error', () => {
    expect(
      classify(
        reference,
        answer(
          200,
          'application/xml',
          '<respon><order_status>0</order_status><result_info>0051:Declined</result_info></respon>',
          'authoriseDirect',
        ),
      ),
    ).toBe('served');
    expect(
      classify(
        reference,
        answer(
          200,
          json,
          '{"return_status":"1","return_message":"OK","capture_orders":[{"capture_status":"0","error_message":"2002:Unknown transaction"}]}',
        ),
      ),
    ).toBe('served');
    expect(
      classify(reference, answer(404, json, '{"return_status":"0","return_message":"1004:Record not found"}')),
    ).toBe('served');
    expect(
      classify(
        reference,
        answer(404, json, '{"merchant_id":"M1","return_status":"0","return_message":"9999:no such order"}'),
      ),
    ).toBe('served');
    expect(classify(reference, answer(400, json, '{"return_status":"0","return_message":"1002:Invalid input"}'))).toBe(
      'served',
    );
    expect(classify(reference, answer(503, 'text/plain', 'busy'))).toBe('served');
    expect(classify(reference, noAnswer('capture'))).toBe('noAnswer');
  });

  it('reads HTML 404 and 501 pages, and the profile’s unknownPath, as nothing served', () => {
    expect(classify(reference, answer(404, 'text/html', '<h1>Not Found</h1>'))).toBe('notServed');
    expect(classify(reference, answer(501, 'text/html', '<h1>Not Implemented</h1>'))).toBe('notServed');
    expect(classify(reference, answer(405, 'text/plain', 'Method Not Allowed'))).toBe('notServed');
    expect(classify(reference, answer(200, 'text/html; charset=utf-8', '<!doctype html><div id="app"></div>'))).toBe(
      'notServed',
    );
    expect(
      classify(
        reference,
        answer(404, json, '{"merchant_id":"","return_status":"0","return_message":"1008:Unknown path"}'),
      ),
    ).toBe('notServed');
  });

  it('stops the run only when every answer says the same thing', () => {
    const refused = answer(401, json, '{"return_status":"0","return_message":"1001:Invalid signature"}');
    const page = answer(404, 'text/html', '<h1>Not Found</h1>', 'retrievalRefund');
    const input = { profile: reference, config, options, embedded: false };
    expect(verdictOfPreflight(input, [refused, { ...refused, id: 'r#2' }], {})).toMatch(
      /refused the kit's credentials/,
    );
    expect(verdictOfPreflight(input, [page, answer(501, 'text/html', '<h1>501</h1>')], {})).toMatch(
      /is not a PAGI gateway: POST \/v1\/retrievalRefund and POST \/v1\/capture were answered HTTP 404 \(text\/html\), HTTP 501 \(text\/html\)/,
    );
    // Some operations answered: judged as usual.
    expect(verdictOfPreflight(input, [refused, page], {})).toBeUndefined();
    expect(
      verdictOfPreflight(input, [refused, answer(200, json, '{"return_status":"1","return_message":"OK"}')], {}),
    ).toBeUndefined();
    expect(verdictOfPreflight(input, [page, noAnswer('capture')], {})).toBeUndefined();
    expect(verdictOfPreflight(input, [noAnswer('retrievalRefund'), noAnswer('capture')], {})).toBeUndefined();
  });

  it('stops the run when every operation answers HTTP 404 as a path of no operation does (a wrong base URL)', () => {
    const input = { profile: reference, config, options, embedded: false };
    const pageNotFound = (operation: OperationKey) =>
      answer(404, 'text/html', '<p>1004:Record not found</p>', operation);
    const sentence = verdictOfPreflight(
      input,
      [pageNotFound('retrievalRefund'), pageNotFound('capture')],
      {},
      pageNotFound('pagiKitNoSuchOperation' as OperationKey),
    );
    expect(sentence).toBe(
      "Nothing answers at http://127.0.0.1:8080/v1/\u2026: POST /v1/retrievalRefund and POST /v1/capture were each answered HTTP 404 (text/html), as POST /v1/pagiKitNoSuchOperation (a path of no operation) was, so none of the operations is served there and no check ran; check the base URL (--target): the operations' /v1/\u2026 paths are added to it, path prefix included.",
    );
    // A JSON 404 carrying PAGI fields everywhere reads as served, answer by answer; compared with the path of no
    // operation it is nothing served.
    const json404 = (operation: OperationKey) =>
      answer(404, json, '{"merchant_id":"","return_status":"0","return_message":"not found"}', operation);
    expect(classify(reference, json404('capture'))).toBe('served');
    expect(verdictOfPreflight(input, [json404('retrievalRefund'), json404('capture')], {}, json404('capture'))).toMatch(
      /^Nothing answers at /,
    );
  });

  it('does not fire on a gateway that answers its operations 404 legitimately (an unknown record)', () => {
    const input = { profile: reference, config, options, embedded: false };
    const unknownRecord = (operation: OperationKey) =>
      answer(404, json, '{"merchant_id":"M1","return_status":"0","return_message":"1004:Record not found"}', operation);
    const unknownPath = answer(
      404,
      json,
      '{"merchant_id":"","return_status":"0","return_message":"1008:Unknown path"}',
    );
    expect(
      verdictOfPreflight(input, [unknownRecord('retrievalRefund'), unknownRecord('capture')], {}, unknownPath),
    ).toBeUndefined();
    // One operation served (200), one answering 404 like the path of no operation: judged as usual.
    const ok = answer(200, json, '{"return_status":"1","return_message":"OK"}');
    expect(verdictOfPreflight(input, [ok, unknownRecord('capture')], {}, unknownRecord('capture'))).toBeUndefined();
    // No request to a path of no operation: no comparison.
    expect(verdictOfPreflight(input, [unknownRecord('retrievalRefund'), unknownRecord('capture')], {})).toBeUndefined();
  });

  it('never shows the secret, even when the target echoes it', () => {
    const echoed = answer(401, json, '{"return_status":"0","return_message":"1001:bad signature for s3cret-value"}');
    const sentence = verdictOfPreflight({ profile: reference, config, options, embedded: false }, [echoed], {
      secrets: ['s3cret-value'],
    })!;
    expect(sentence).toMatch(/refused the kit's credentials/);
    expect(sentence).not.toContain('s3cret-value');
  });
});

describe('credential sources', () => {
  it('names the environment variables, the config file or the embedded defaults each credential came from', () => {
    const env = { PAGI_SECRET: 's3cret-value' };
    expect(credentialSources({ ...options, merchantId: undefined, accountId: undefined }, true, env)).toBe(
      "merchant id and account id from the embedded reference gateway's defaults and secret from the environment (PAGI_SECRET)",
    );
    const file = tempFile('creds.yaml', 'merchantId: M1\naccountId: A1\n');
    expect(credentialSources({ ...options, config: file }, false, env)).toBe(
      `merchant id and account id from the config file ${file} and secret from the environment (PAGI_SECRET)`,
    );
    expect(credentialSources(options, false, {})).toBe('merchant id, account id and secret from the options of run()');
  });
});

describe('through the command line', () => {
  it('a target whose every path answers a JSON 404 is a set-up error (exit 2, one sentence, no report)', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"merchant_id":"","return_status":"0","return_message":"no route"}'),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay`;
    try {
      const run = await runCli(['--target', target, '--reporter', 'json'], {
        PAGI_MERCHANT_ID: 'M1',
        PAGI_ACCOUNT_ID: 'A1',
        PAGI_SECRET: 's3cret-value',
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        new RegExp(
          `^pagi-conform: Nothing answers at ${target.replace(/[.]/g, '\\.')}/v1/\u2026: .*path prefix included.\n$`,
        ),
      );
      expect(run.stderr.split('\n')).toHaveLength(2);
      expect(fs.existsSync(path.join(run.out, 'results.json'))).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
